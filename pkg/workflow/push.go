package workflow

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/bumprule"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/validate"
)

// PushOptions say what Push publishes, where, and how.
type PushOptions struct {
	// Source is a package directory, built as Pack builds it, a
	// reference in the local store or an oci: layout, or a git reference,
	// whose tree is built as a package (see docs/sources.md). Required.
	Source string
	// Destination is a registry reference or an oci: layout. One
	// without a tag is tagged with the package version; one with a digest
	// only is pushed untagged and must name the digest the package has.
	// Required.
	Destination string
	// Build shapes the package built from a directory Source, which is
	// always built for publishing, its dependencies recorded by reference
	// only. Build.MaxSize bounds the package read and copied too; 0 is
	// layers.DefaultMaxSize, negative no limit.
	Build pack.Options
	// Against is the published package whose stateful files a package
	// built from Source must not have changed without a version bump;
	// empty is whatever Destination already names.
	Against string
	// PushDependencies first pushes each package directory Source
	// depends on to the reference stax.yaml names beside its path, so
	// that Source can be built to depend on them by reference; Source must
	// then be a directory. NoOverwrite holds for them too. False leaves a
	// dependency on a directory for the build to refuse.
	PushDependencies bool
	// NoOverwrite refuses, before anything is pushed, a Destination tag
	// that names another package already; false moves the tag, and the
	// result's Replaced says from which digest.
	NoOverwrite bool
	// AllowPlaceholders pushes a package built from a directory whose
	// skills still hold placeholders stax new skill wrote; false refuses
	// it, before anything is pushed.
	AllowPlaceholders bool
	// Signer, when set, signs the package once it is pushed and attaches
	// the signature beside it. Nil pushes it unsigned. Loading the key
	// first, before anything is pushed, means a wrong key pushes nothing.
	Signer signature.Signer
	// DependencyPushed, when set, is told of each package directory
	// PushDependencies pushed, once they all are or one has failed.
	DependencyPushed func(publish.Published)
	// Built, when set, is given the package built from a directory
	// Source, before it is pushed: a printer shows its validation
	// warnings and notices.
	Built func(*pack.Result)
}

// PushResult is what Push copied, and the signature it attached.
type PushResult struct {
	Transfer
	// Signature is the signature made with PushOptions.Signer; nil
	// without one.
	Signature *signature.Signed `json:"-"`
}

// Push publishes a package to a registry or an OCI layout: one built from
// a directory, validated and checked against the published version it
// follows, or one already stored. Blobs the destination has are not sent
// again; a layout the push created is removed when it fails.
func Push(ctx context.Context, env *Env, opts PushOptions) (*PushResult, error) {
	dstRef, err := reference.Parse(opts.Destination)
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	if err := checkDestination(opts.Destination, dstRef); err != nil {
		return nil, err
	}
	ref, isGit, err := env.gitSourceOf(opts.Source)
	if err != nil {
		return nil, err
	}
	if isGit {
		if err := opts.refuseDirectoryOptions(); err != nil {
			return nil, err
		}
		return pushGit(ctx, env, opts, ref, dstRef, Verification{}) // built as a mirror
	}
	build := opts.Build
	build.Publish = true
	if opts.PushDependencies {
		if err := env.publishDependencies(ctx, opts.Source, build, opts.NoOverwrite, opts.DependencyPushed); err != nil {
			return nil, err
		}
	}
	if dir, ambiguous := source.IsDirectory(opts.Source); dir && ambiguous {
		env.warnf("%s", source.AmbiguousWarning(opts.Source))
	}
	sourceOpts := source.Options{Opener: env.Opener, Build: build, Limits: layers.Limits{MaxSize: build.MaxSize}, Scope: source.LocalOnly}
	src, err := source.Open(ctx, opts.Source, sourceOpts)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	// Read and checked once, for the checks here and for the copy.
	pkg, err := src.Package(ctx)
	if err != nil {
		return nil, err
	}
	var seen bumprule.Seen
	if src.Built == nil {
		// A stored package that depends on a directory (one built by
		// pack in a source checkout) could be installed by nobody. A
		// package built here was checked as it was built.
		if err := pack.CheckPublishable(src.Name, pkg.Config.Packages); err != nil {
			return nil, err
		}
	} else {
		if opts.Built != nil {
			opts.Built(src.Built)
		}
		if !opts.AllowPlaceholders {
			if err := refusePlaceholders(src.Built.Report); err != nil {
				return nil, err
			}
		}
		if seen, err = bumprule.Check(ctx, sourceOpts, opts.Against, dstRef, src.Built); err != nil {
			return nil, err
		}
	}
	copyOpts := env.transferOptions(build.MaxSize)
	copyOpts.Package, copyOpts.NewTag, copyOpts.Tagged, copyOpts.NoOverwrite = pkg, seen.NewTag, seen.Tagged, opts.NoOverwrite
	dst, res, err := publish.Push(ctx, env.Opener, src.Target, dstRef, copyOpts)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	out := &PushResult{Transfer: newTransfer(dst.Ref, res)}
	if src.Built != nil && src.Built.Report != nil {
		out.Warnings = src.Built.Report.Warnings
	}
	if opts.Signer != nil {
		if out.Signature, err = sign(ctx, dst, res.Descriptor, opts.Signer, layers.Limits{MaxSize: build.MaxSize}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// gitSourceOf is the git reference src names, and whether it names one,
// read as source.Open reads it: a directory first, then by
// declaration.Parse, as every command reads a reference.
func (e *Env) gitSourceOf(src string) (gitsource.Reference, bool, error) {
	if dir, _ := source.IsDirectory(src); dir {
		return gitsource.Reference{}, false, nil
	}
	d, err := declaration.Parse(e.Opener.BareTag(src), declaration.Where{})
	if err != nil {
		return gitsource.Reference{}, false, errdefs.Invalid(err)
	}
	return d.Git, d.Kind == declaration.Git, nil
}

// publishDependencies pushes the package directories dir depends on to
// the references its stax.yaml names beside them, each built as build
// says, and tells pushed of each. With noOverwrite, a reference whose tag
// names another package is refused, as the package's own is.
func (e *Env) publishDependencies(ctx context.Context, dir string, build pack.Options, noOverwrite bool, pushed func(publish.Published)) error {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return errdefs.Invalid(fmt.Errorf("--push-dependencies builds a package directory, and %s is not one", dir))
	}
	p, err := staxyaml.Open(dir)
	if err != nil {
		return err
	}
	copyOpts := e.transferOptions(build.MaxSize)
	copyOpts.NoOverwrite = noOverwrite
	published, err := publish.PushDependencies(ctx, p, source.Options{Opener: e.Opener, Limits: layers.Limits{MaxSize: build.MaxSize}, Build: build}, copyOpts)
	for _, d := range published {
		if pushed != nil {
			pushed(d)
		}
	}
	return err
}

// refusePlaceholders refuses a package whose skills still hold what stax
// new skill scaffolded: once pushed, agents read "TODO: say what this
// skill does" as the skill. Validation keeps them warnings, so that a
// skill being written still packs and renders.
func refusePlaceholders(report *validate.Report) error {
	if report == nil {
		return nil
	}
	var where []string
	for _, d := range report.Warnings {
		if d.Code == validate.CodePlaceholder {
			where = append(where, fmt.Sprintf("%s:%d", d.File, d.Line))
		}
	}
	if len(where) == 0 {
		return nil
	}
	return errdefs.Invalid(fmt.Errorf("the skills hold %d placeholders stax new skill wrote, at %s: replace them with the skills' own text, or push them as they are with --allow-placeholders",
		len(where), strings.Join(where, ", ")))
}
