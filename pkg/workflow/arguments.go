package workflow

import (
	"github.com/stax-dev/stax/pkg/source"
)

// declarations turns the package arguments of install and pull into
// declarations relative to base, by the rule every command follows: a
// directory is taken from where stax runs (see source.IsDirectory). A name
// that is both a directory and a reference is taken as the directory, with
// a warning.
func (e *Env) declarations(args []string, base string) ([]string, error) {
	decls := make([]string, len(args))
	for i, arg := range args {
		if dir, ambiguous := source.IsDirectory(arg); dir && ambiguous {
			e.warnf("%s", source.AmbiguousWarning(arg))
		}
		decl, err := source.Declaration(arg, base)
		if err != nil {
			return nil, err
		}
		decls[i] = decl
	}
	return decls, nil
}
