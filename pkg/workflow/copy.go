package workflow

import (
	"context"
	"fmt"

	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/transfer"
)

// CopyOptions say what Copy copies and where to.
type CopyOptions struct {
	// Source is the package, or any OCI image index or manifest, to copy:
	// a registry reference or oci:PATH[:TAG|@DIGEST]. Without a tag or
	// digest it is a layout's one manifest, else the highest release tag,
	// else latest (see Target.SelectDefault). Required.
	Source string
	// Destination is where the copy goes, a registry reference or an oci:
	// layout; without a tag or digest it takes Source's tag. Required.
	Destination string
	// NoReferrers copies the package alone; false copies its signatures
	// and the other artifacts that refer to it too.
	NoReferrers bool
	// WithDependencies copies the packages Source depends on too, to the
	// same repository paths and tags on Destination's registry, which
	// must then be a registry, and Source must be a stax package; false
	// copies Source alone.
	WithDependencies bool
	// NoOverwrite refuses, before anything is copied, a Destination tag
	// that names another manifest already; false moves the tag, and the
	// result's Replaced says from which digest.
	NoOverwrite bool
	// Limits bound each package and the skills layers read to check
	// signatures; the zero value is the defaults.
	layers.Limits
	// Verify is the signature check of every package copied; the zero
	// value follows the trust policy.
	Verify Verification
	// Signer, when set, signs the copy at Destination and attaches the
	// signature beside it; nil copies the signatures Source has.
	Signer signature.Signer
}

// Copy copies a package, or any OCI image, from one registry or layout to
// another, with its referrers. The trust policy applies to every package
// copied before anything is written: the package alone, or with what it
// depends on. Each dependency copied is reported on env.Warnings.
func Copy(ctx context.Context, env *Env, opts CopyOptions) (*Transfer, error) {
	if err := env.checkVerification(opts.Verify); err != nil {
		return nil, err
	}
	// The package copied enters here, and is parsed once.
	d, err := declaration.Parse(env.Opener.BareTag(opts.Source), declaration.Where{})
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	switch d.Kind {
	case declaration.Directory:
		return nil, errdefs.Invalid(fmt.Errorf("%s names a package directory, not a stored package to copy: build and publish it with stax push %s DEST", termtext.Escape(opts.Source), termtext.Escape(opts.Source)))
	case declaration.Git:
		return copyGit(ctx, env, opts, d.Git)
	}
	srcRef, dstRef, err := copyReferences(env.Opener, d, opts.Destination)
	if err != nil {
		return nil, err
	}
	src, err := env.openCopySource(ctx, opts.Source, srcRef)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	// A source without a tag or digest takes the repository's default,
	// and a destination without one the tag it chose.
	if err := src.SelectDefault(ctx); err != nil {
		return nil, err
	}
	srcRef = src.Ref
	if dstRef.Tag == "" && dstRef.Digest == "" {
		dstRef.Tag = srcRef.Tag
	}
	var graph *resolve.Graph
	if opts.WithDependencies {
		decl := srcRef.String()
		if isLocalTag(opts.Source, srcRef) {
			decl = srcRef.Familiar() // which the resolver, too, reads from the store
		}
		pkgs := cache.New(env.Opener, nil)
		defer pkgs.Close()
		graph, _, err = env.resolveTrusted(ctx, []declaration.Declaration{declaration.Of(srcRef, decl, declaration.Where{})}, ".", resolve.Options{Source: pkgs, Limits: opts.Limits}, opts.Verify)
		if err != nil {
			return nil, err
		}
		defer graph.Close()
	} else if err := env.enforceTarget(ctx, src, opts.Verify, opts.Limits); err != nil {
		return nil, err
	}

	dst, err := env.Opener.Open(ctx, dstRef, store.ReadWrite)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	if opts.WithDependencies && dst.Kind != target.KindRemote {
		return nil, target.DiscardAfter(dst, errdefs.Invalid(fmt.Errorf("--with-dependencies copies to a registry, not to %s", dst.Name())))
	}
	res, err := env.copy(ctx, src, dst, transfer.Options{Limits: opts.Limits, Referrers: !opts.NoReferrers, AnyArtifact: !opts.WithDependencies, NoOverwrite: opts.NoOverwrite})
	if err != nil {
		return nil, target.DiscardAfter(dst, err)
	}
	if graph != nil {
		if err := env.copyDependencies(ctx, graph, dstRef.Registry, transfer.Options{Limits: opts.Limits, Referrers: !opts.NoReferrers, Concurrency: env.Concurrency}); err != nil {
			return nil, err
		}
	}
	out := newTransfer(dst.Ref, res)
	if opts.Signer != nil {
		if _, err := sign(ctx, dst, res.Descriptor, opts.Signer, opts.Limits); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// copyGit copies the package built from the git source ref (opts.Source, parsed), as
// Push publishes it: a git repository has no signatures to copy, nor
// packages it depends on.
func copyGit(ctx context.Context, env *Env, opts CopyOptions, ref gitsource.Reference) (*Transfer, error) {
	if opts.WithDependencies {
		return nil, errdefs.Invalid(fmt.Errorf("--with-dependencies copies the packages a stored package depends on, and %s is a git repository: push the packages it declares first", termtext.Escape(userinfo.Mask(opts.Source))))
	}
	if opts.Verify.requires() {
		// Nothing would be checked: refused rather than copied unverified.
		return nil, errdefs.Invalid(fmt.Errorf("--verify require (or a --key, --certificate-identity or --trusted-root without --verify) checks the signature of the package copied, and %s is a git repository, which carries none: sign the copy with --sign instead", termtext.Escape(userinfo.Mask(opts.Source))))
	}
	dstRef, err := reference.Parse(env.Opener.BareTag(opts.Destination))
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	if err := checkDestination(opts.Destination, dstRef); err != nil {
		return nil, err
	}
	push := PushOptions{Source: opts.Source, Destination: opts.Destination, NoOverwrite: opts.NoOverwrite, Signer: opts.Signer, Build: pack.Options{Limits: opts.Limits}}
	res, err := pushGit(ctx, env, push, ref, dstRef, opts.Verify)
	if err != nil {
		return nil, err
	}
	return &res.Transfer, nil
}

// copyReferences are the reference of the copy's source, declared as d,
// and its destination, parsed.
func copyReferences(opener *target.Opener, d declaration.Declaration, destination string) (src, dst reference.Reference, err error) {
	src = d.Ref
	if dst, err = reference.Parse(opener.BareTag(destination)); err != nil {
		return src, dst, errdefs.Invalid(err)
	}
	if err := checkDestination(destination, dst); err != nil {
		return src, dst, err
	}
	return src, dst, nil
}

// copyDependencies copies what the package of graph depends on to
// registry, saying on the warnings stream what went where, also for the
// copies made before one failed.
func (e *Env) copyDependencies(ctx context.Context, graph *resolve.Graph, registry string, opts transfer.Options) error {
	copied, err := publish.CopyDependencies(ctx, graph, e.Opener, registry, opts)
	for _, c := range copied {
		fmt.Fprintf(e.warnings(), "Copied dependency %s to %s\n", c.From.Familiar(), c.To.Familiar())
	}
	return err
}
