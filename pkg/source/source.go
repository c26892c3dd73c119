// Package source opens the package a command argument names, wherever it
// is: a package directory (built exactly as pack builds it), the local
// store, an OCI layout (oci:PATH[:TAG|@DIGEST]) or a registry. Every
// command reads packages through it, with one Options value, so that
// a directory gets the same digest and every read the same limits in
// every command.
package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/warning"
)

// Scope says where Open may look for a reference.
type Scope int

const (
	// LocalThenRemote looks in the local store, then in the registry.
	LocalThenRemote Scope = iota
	// LocalOnly looks in the local store or an oci: layout only.
	LocalOnly
	// RemoteOnly asks the registry only.
	RemoteOnly
)

// Options say how to open a package. The zero value of each field but
// Opener is a usable default.
type Options struct {
	// Opener reaches the local store, layouts and registries.
	Opener *target.Opener
	// Build shapes a package built from a directory; its MaxSize is
	// replaced by that of Limits, the one limit of a command.
	Build pack.Options
	// Limits bound the skills layer built or read; the zero value is the
	// defaults.
	layers.Limits
	// Scope is where a reference is looked up.
	Scope Scope
	// Git is the cache a git reference's tree is taken from; nil reads
	// a git reference as a registry one, which it is not.
	Git *gitsource.Cache
}

// Source is an open package. Close it.
type Source struct {
	*target.Target
	Descriptor ocispec.Descriptor
	// Name is how the user named it: a reference, or a directory.
	Name string
	// Built is set when the package was built from a directory or a git
	// source; Warnings are the content rules a git source's skills break.
	Built    *pack.Result
	Warnings warning.List
	opts     Options
}

// IsDirectory is the one rule that tells a directory argument from a
// reference: a name that starts with "." or "/" (or is absolute) is a
// directory, and so is a name that is an existing directory; anything
// else is a reference. Ambiguous is set when arg is an existing directory
// that also reads as a reference, so that a command can say which it used.
func IsDirectory(arg string) (dir, ambiguous bool) {
	if strings.HasPrefix(arg, reference.LayoutPrefix) {
		return false, false
	}
	if strings.HasPrefix(arg, ".") || filepath.IsAbs(arg) {
		return true, false
	}
	info, err := os.Stat(arg)
	if err != nil || !info.IsDir() {
		return false, false
	}
	_, perr := declaration.Parse(arg, declaration.Where{})
	return true, perr == nil
}

// AmbiguousWarning is what a command says when arg is a directory that
// also reads as a reference: how to write either one unambiguously. A
// git repository's shorthand (github.com/OWNER/REPO) is no registry
// reference, and an image's name would not name it.
func AmbiguousWarning(arg string) string {
	if d, err := declaration.Parse(arg, declaration.Where{}); err == nil && d.Kind == declaration.Git {
		return fmt.Sprintf("%s is a directory here and could also be a git repository; using the directory (write ./%s for the directory, or %s for the repository)", arg, arg, termtext.Escape(d.Git.String()))
	}
	return fmt.Sprintf("%s is a directory here and could also be a registry reference; using the directory (write ./%s for the directory, or a full reference such as docker.io/library/%s for the image)", arg, arg, arg)
}

// Declaration turns a command-line package argument into a declaration
// for resolve.Resolve with base as its base: a directory (by IsDirectory),
// or the directory of an oci: layout, becomes a path relative to base,
// starting with "./" or "../", so that it is taken from where the command
// runs and still reads as a path in stax.yaml and stax.lock; a reference
// is returned as it is.
func Declaration(arg, base string) (string, error) {
	if ref, err := reference.Parse(arg); err == nil && ref.IsLayout() {
		if filepath.IsAbs(ref.Layout) {
			return arg, nil
		}
		if ref.Layout, err = relativeTo(ref.Layout, base); err != nil {
			return "", err
		}
		return ref.String(), nil
	}
	if dir, _ := IsDirectory(arg); !dir {
		return arg, nil
	}
	return relativeTo(arg, base)
}

// relativeTo is path, relative to where stax runs, relative to base
// instead: "./" or "../" first, or absolute where no relative path leads
// there.
func relativeTo(path, base string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", errdefs.MarkLocal(err)
	}
	absBase, err := filepath.Abs(base)
	if err != nil {
		return "", errdefs.MarkLocal(err)
	}
	rel, err := filepath.Rel(absBase, abs)
	if err != nil {
		return abs, nil
	}
	rel = filepath.ToSlash(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return rel, nil
	}
	return "./" + rel, nil
}

// Open finds the package arg names: a package directory (see IsDirectory),
// built into a temporary layout that Close removes; an oci: layout; a
// name without a registry host (team-skills:1.0.0), which is a tag of the
// local store whatever opts.Scope says; or a reference in the local store
// or a registry, as opts.Scope allows.
func Open(ctx context.Context, arg string, opts Options) (*Source, error) {
	opts.Build.MaxSize = opts.MaxSize
	if dir, _ := IsDirectory(arg); dir {
		return build(ctx, arg, opts)
	}
	opener := opts.Opener
	// A package argument enters here, and is parsed once.
	d, err := declaration.Parse(opener.BareTag(arg), declaration.Where{})
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	if d.Kind == declaration.Git {
		return OpenGit(ctx, d.Git, opts)
	}
	ref := d.Ref
	if d.Kind == declaration.Layout {
		// Opened for reading, a layout must exist: reading creates nothing.
		return lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, ref, store.ReadOnly) }, arg, opts)
	}
	if !d.IsRemote() {
		// A name without a registry host is a tag of the local store, as
		// pack -t writes it: a mistyped one is not a Docker Hub request.
		return openLocalTag(ctx, ref, arg, opts)
	}
	if opts.Scope == RemoteOnly {
		return lookup(ctx, func() (*target.Target, error) { return opener.OpenRegistry(ctx, ref) }, arg, opts)
	}
	src, err := lookup(ctx, func() (*target.Target, error) { return opener.OpenLocal(ctx, ref, store.ReadOnly) }, arg, opts)
	if err == nil || opts.Scope == LocalOnly || errdefs.Of(err) != errdefs.InvalidArgument {
		return src, err
	}
	remote, rerr := lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, ref, store.ReadOnly) }, arg, opts)
	if rerr != nil {
		return nil, fmt.Errorf("%s is not in the local store, and asking its registry failed: %w", ref.Familiar(), rerr)
	}
	return remote, nil
}

// OpenPackage is Open followed by Package: the package and its checked
// manifest and config.
func OpenPackage(ctx context.Context, arg string, opts Options) (*Source, *artifact.Package, error) {
	src, err := Open(ctx, arg, opts)
	if err != nil {
		return nil, nil, err
	}
	pkg, err := src.Package(ctx)
	if err != nil {
		src.Close()
		return nil, nil, err
	}
	return src, pkg, nil
}

// Package fetches and checks the manifest and config, within MaxSize. The
// config of a package built from a directory is checked as it was built,
// in memory, rather than read back.
func (s *Source) Package(ctx context.Context) (*artifact.Package, error) {
	if s.Built != nil {
		return transfer.CheckBuilt(ctx, s.Target, s.Descriptor, s.Built.Config, s.Built.ConfigDescriptor, s.opts.MaxSize)
	}
	return transfer.Check(ctx, s.Target, s.Descriptor, s.opts.MaxSize)
}

// MaxSize is the limit the source was opened with.
func (s *Source) MaxSize() int64 { return s.opts.MaxSize }

// Lookup opens a target with open and resolves its reference, for a
// command that chooses the place itself (sign and verify never fall back
// from one place to another).
func Lookup(ctx context.Context, open func() (*target.Target, error), name string) (*Source, error) {
	return lookup(ctx, open, name, Options{})
}

func lookup(ctx context.Context, open func() (*target.Target, error), name string, opts Options) (*Source, error) {
	t, err := open()
	if err != nil {
		return nil, err
	}
	desc, err := t.Lookup(ctx)
	if err != nil {
		t.Close()
		return nil, err
	}
	return &Source{Target: t, Descriptor: desc, Name: name, opts: opts}, nil
}

// build packs dir into a temporary layout that Close removes.
func build(ctx context.Context, dir string, opts Options) (*Source, error) {
	p, err := staxyaml.Open(dir)
	if err != nil {
		return nil, err
	}
	ropts := resolve.Options{Source: cache.New(opts.Opener, nil), Limits: opts.Limits}
	if opts.Git != nil {
		ropts.Git = &resolve.GitOptions{Cache: opts.Git}
	}
	deps := resolve.Dependencies(ropts)
	var res *pack.Result
	t, err := opts.Opener.OpenBuilt(ctx, "build", func(pusher content.Pusher) (ocispec.Descriptor, error) {
		if res, err = pack.Project(ctx, p, pusher, deps, opts.Build); err != nil {
			return ocispec.Descriptor{}, err
		}
		return res.Descriptor, nil
	})
	if err != nil {
		return nil, err
	}
	return &Source{
		Target:     t,
		Descriptor: res.Descriptor,
		Name:       dir,
		Built:      res,
		opts:       opts,
	}, nil
}
