package workflow

import (
	"context"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/pack"

	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/source"
)

// pushGit publishes the package built from the git source ref (opts.Source, parsed) to
// dstRef, signed when opts.Signer is set: a mirror of someone else's
// skills, annotated with the repository and commit they came from, built
// leniently as install builds it (the content rules its skills break are
// warnings), or with opts.Build.Strict as install --strict does. The rules Push holds a package directory to (a version bump
// where stateful files changed, no placeholders) are the author's to
// keep: the mirror takes the tree as it is.
func pushGit(ctx context.Context, env *Env, opts PushOptions, ref gitsource.Reference, dstRef reference.Reference) (*PushResult, error) {
	maxSize := opts.Build.MaxSize
	git, err := env.gitCache()
	if err != nil {
		return nil, err
	}
	git.MaxSize = max(maxSize, 0)
	src, err := source.OpenGit(ctx, ref, source.Options{Opener: env.Opener, Build: pack.Options{Strict: opts.Build.Strict}, Limits: layers.Limits{MaxSize: maxSize}, Git: git})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	env.warnGit(src.Warnings)
	pkg, err := src.Package(ctx)
	if err != nil {
		return nil, err
	}
	copyOpts := env.transferOptions(maxSize)
	copyOpts.Package, copyOpts.NoOverwrite = pkg, opts.NoOverwrite
	dst, res, err := publish.Push(ctx, env.Opener, src.Target, dstRef, copyOpts)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	out := &PushResult{Transfer: newTransfer(dst.Ref, res)}
	if opts.Signer != nil {
		if out.Signature, err = sign(ctx, dst, res.Descriptor, opts.Signer, layers.Limits{MaxSize: maxSize}); err != nil {
			return nil, err
		}
	}
	return out, nil
}
