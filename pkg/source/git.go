package source

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitpackage"
	"github.com/stax-dev/stax/pkg/gitsource"
)

// OpenGit builds the package of the git reference ref (its REF resolved
// with one git ls-remote, its tree taken from opts.Git) into a temporary
// layout that Close removes, leniently unless opts.Build.Strict: the
// content rules its skills break are the source's Warnings. Its Name is
// the reference without credentials. Open calls it for a git reference;
// a caller that parsed the reference already (declaration.Parse) calls it
// directly.
func OpenGit(ctx context.Context, ref gitsource.Reference, opts Options) (*Source, error) {
	if opts.Git == nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s is a git repository, which this command does not read", ref))
	}
	var built *gitpackage.Built
	t, err := opts.Opener.OpenBuilt(ctx, "build", func(pusher content.Pusher) (ocispec.Descriptor, error) {
		b, err := gitpackage.Build(ctx, pusher, gitpackage.Declaration{Ref: ref}, gitpackage.Options{Cache: opts.Git, Limits: opts.Limits, Strict: opts.Build.Strict})
		if err != nil {
			return ocispec.Descriptor{}, err
		}
		built = b
		return b.Descriptor, nil
	})
	if err != nil {
		return nil, err
	}
	res := built.Result.Result
	return &Source{
		Target:     t,
		Descriptor: res.Descriptor,
		Name:       ref.String(),
		Built:      res,
		Warnings:   built.Warnings,
		opts:       opts,
	}, nil
}
