package workflow

import (
	"context"
	"fmt"

	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/pack"

	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// pushGit publishes the package built from the git source ref (opts.Source, parsed) to
// dstRef, signed when opts.Signer is set: a mirror of someone else's
// skills, annotated with the repository and commit they came from, built
// leniently as install builds it (the content rules its skills break are
// warnings), or with opts.Build.Strict as install --strict does. The rules Push holds a package directory to (a version bump
// where stateful files changed, no placeholders) are the author's to
// keep: the mirror takes the tree as it is. What the mirror brings in is
// held to the trust policy, as v overrides it, before anything is
// written, as install and pull hold a git source, under the name install
// checks it by: a scope that must verify refuses it, since a git
// repository carries no signature.
func pushGit(ctx context.Context, env *Env, opts PushOptions, ref gitsource.Reference, dstRef reference.Reference, v Verification) (*PushResult, error) {
	limits := opts.Build.Limits
	git, err := env.gitCache()
	if err != nil {
		return nil, err
	}
	git.Limits = limits
	src, err := source.OpenGit(ctx, ref, source.Options{Opener: env.Opener, Build: pack.Options{Strict: opts.Build.Strict}, Limits: limits, Git: git})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	env.warnGit(src.Warnings)
	pkg, err := src.Package(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := env.enforce(ctx, []trust.Package{{Ref: trustpolicy.ScopeName(ref.String()), Target: src.Target, Descriptor: src.Descriptor}}, v, nil, nil, limits); err != nil {
		return nil, err
	}
	copyOpts := env.transferOptions(limits.MaxSize)
	copyOpts.Package, copyOpts.NoOverwrite = pkg, opts.NoOverwrite
	dst, res, err := publish.Push(ctx, env.Opener, src.Target, dstRef, copyOpts)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	out := &PushResult{Transfer: newTransfer(dst.Ref, res)}
	if opts.Signer != nil {
		if out.Signature, err = sign(ctx, dst, res.Descriptor, opts.Signer, limits); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// directoryOptions are the options of Push that shape only a package
// built from a directory, by the flag that sets each, with why each means
// nothing for a git source: its package is the one install builds from
// that commit, byte for byte on every machine, and a mirror takes the tree
// as its author tagged it.
var directoryOptions = []struct {
	flag, why string
	set       func(PushOptions) bool
}{
	{"created", "its creation time is the epoch on every machine, so that its digest is the one install builds from that commit", func(o PushOptions) bool { return !o.Build.Created.IsZero() }},
	{"symlink-mode", "its links are packaged by the flatten rule on every machine, as install builds it", func(o PushOptions) bool { return o.Build.Symlinks != "" }},
	{"against", "a mirror takes the tree as its author tagged it: the version-bump rule is the author's to keep", func(o PushOptions) bool { return o.Against != "" }},
	{"allow-placeholders", "a mirror takes the tree as it is, placeholders and all: nothing is refused for them", func(o PushOptions) bool { return o.AllowPlaceholders }},
	{"push-dependencies", "it publishes the package directories a directory depends on before the directory itself", func(o PushOptions) bool { return o.PushDependencies }},
}

// refuseDirectoryOptions refuses, for a git Source, the directoryOptions
// set: ignored, they would be believed to have been applied.
func (opts PushOptions) refuseDirectoryOptions() error {
	for _, o := range directoryOptions {
		if o.set(opts) {
			return errdefs.Invalid(fmt.Errorf("--%s shapes a package built from a directory, and %s is a git repository: %s", o.flag, termtext.Escape(userinfo.Mask(opts.Source)), o.why))
		}
	}
	return nil
}
