package workflow

import (
	"context"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/source"
)

// open opens the package arg names for a job that reads one (inspect,
// diff): a directory, built as pack builds it with build, a git source,
// built leniently, or a reference looked up as scope says. A name that is both a directory and a
// reference is taken as the directory, with a warning.
func (e *Env) open(ctx context.Context, arg string, build pack.Options, scope source.Scope) (*source.Source, error) {
	if dir, ambiguous := source.IsDirectory(arg); dir && ambiguous {
		e.warnf("%s", source.AmbiguousWarning(arg))
	}
	git, err := e.gitCache()
	if err != nil {
		return nil, err
	}
	src, err := source.Open(ctx, arg, source.Options{Opener: e.Opener, Build: build, Limits: layers.Limits{MaxSize: build.MaxSize}, Scope: scope, Git: git})
	if err == nil {
		e.warnGit(src.Warnings)
	}
	return src, err
}
