package workflow

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/termtext"
)

// declarations turns the package arguments of install and pull into
// declarations relative to base, by the rule every command follows: a
// directory is taken from where stax runs (see source.IsDirectory). A name
// that is both a directory and a reference is taken as the directory, with
// a warning. bareTags reads a bare tag as one of the --oci-layout (see
// target.Opener.BareTag). They are parsed here, where they enter, once.
func (e *Env) declarations(args []string, base string, bareTags bool) ([]declaration.Declaration, error) {
	decls := make([]declaration.Declaration, len(args))
	for i, arg := range args {
		if dir, ambiguous := source.IsDirectory(arg); dir && ambiguous {
			e.warnf("%s", source.AmbiguousWarning(arg))
		}
		written, err := source.Declaration(arg, base)
		if err != nil {
			return nil, err
		}
		if bareTags {
			written = e.Opener.BareTag(written)
		}
		if decls[i], err = declaration.Parse(written, declaration.Where{}); err != nil {
			return nil, errdefs.Invalid(fmt.Errorf("%s: %w", termtext.Escape(written), err))
		}
	}
	return decls, nil
}
