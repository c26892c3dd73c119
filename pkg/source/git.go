package source

import (
	"context"
	"fmt"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitpackage"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// buildGit builds the package of the git reference ref (its REF resolved
// with one git ls-remote, its tree taken from opts.Git) into a temporary
// layout that Close removes, leniently: the content rules its skills
// break are the source's Warnings. Its Name is the reference without
// credentials.
func buildGit(ctx context.Context, ref gitsource.Reference, opts Options) (*Source, error) {
	if opts.Git == nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s is a git repository, which this command does not read", ref))
	}
	s, release, err := store.OpenScratch(ctx, "build")
	if err != nil {
		return nil, err
	}
	built, err := gitpackage.Build(ctx, s, gitpackage.Declaration{Ref: ref}, gitpackage.Options{Cache: opts.Git, MaxSize: opts.MaxSize})
	if err != nil {
		release()
		return nil, err
	}
	res := built.Result.Result
	t, err := opts.Opener.Open(ctx, reference.Reference{Layout: s.Dir, Digest: res.Descriptor.Digest}, store.ReadOnly)
	if err != nil {
		release()
		return nil, err
	}
	return &Source{
		Target:     target.WithCleanup(t, func() error { release(); return nil }),
		Descriptor: res.Descriptor,
		Name:       ref.String(),
		Built:      res,
		Warnings:   built.Warnings,
		opts:       opts,
	}, nil
}
