// Package resolve turns declared package references into a graph of exact
// digests, following the stax rules: depth first in declaration order, each
// (reference, digest) visited once, cycles and depth past 32 refused, and a
// reference that resolves to two digests reported with both paths.
package resolve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/warning"
)

// MaxDepth is how deep dependencies may nest.
const MaxDepth = 32

// Options control resolution.
type Options struct {
	// Source opens every package resolved (see Source).
	Source Source
	// Limits bound each package and the skills layer read while
	// resolving; the zero value is the defaults.
	layers.Limits
	// Build is the template for building package directories.
	Build pack.Options
	// Pins fix references to digests (a lockfile's): a tag reference found
	// here resolves to the pinned digest instead of the registry's.
	Pins map[string]digest.Digest
	// PinTags are the tags pinned references were resolved through (a
	// lock's), by reference: a node pinned that names no tag records it
	// as its Tag, as if it had listed the tags again.
	PinTags map[string]string
	// Concurrency is how many registry packages are fetched at once
	// while resolving (see prefetch): each its manifest, then its config
	// and, with FetchLayers, its layer; 0 is transfer.DefaultConcurrency.
	Concurrency int
	// FetchLayers, for a graph about to be stored, says of each registry
	// package, by its declaration and its manifest's digest, whether to
	// have Source keep its skills layer (Source.FetchLayer) as soon as the
	// manifest is read, beside its config, rather than once the whole
	// graph is resolved: the layers of one level then come while the next
	// is looked up. nil fetches none so. A package the caller may yet
	// refuse (a signature to check) is not to be fetched so: a layer
	// fetched for a package the graph then does not store stays in the
	// store untagged, where a later install finds it.
	FetchLayers func(d declaration.Declaration, manifest digest.Digest) bool
	// Git says how git sources are built; nil refuses them.
	Git *GitOptions
}

// Node is one resolved package.
type Node struct {
	// Ref is the reference as declared; for a directory, its path.
	Ref string
	// Key identifies the reference: its familiar form without digest, or
	// the absolute directory.
	Key    string
	Digest digest.Digest
	// Package is the package's manifest and config.
	Package *artifact.Package
	// Target holds the package's blobs.
	Target *target.Target
	// ref is the reference of Key, for a registry package.
	ref reference.Reference
	// Dir is set for a package built from a directory.
	Dir string
	// Git is set for a package built from a git source, and Warnings are
	// the content rules its skills break and the plugin's parts not
	// installed.
	Git      *GitNode
	Warnings warning.List
	Children []*Node
	// Path is the chain of references from the root to this node.
	Path []string
	// Standing is the node's place in the graph's layering.
	Standing Standing
	// Range is the version range the declaration asked for, if any.
	Range string
	// Tag is the tag a reference naming neither tag nor digest resolved
	// through: the highest its Range allows, else the repository's default.
	Tag string
	// held keeps the manifest and config of a registry package, fetched
	// and checked while resolving, until Graph.Store has stored them.
	held *heldBlobs
}

// Held is where n's manifest and config can be read as resolving fetched
// and checked them, without asking the registry again; false when n is
// not a registry package resolving held.
func (n *Node) Held() (oras.GraphTarget, bool) {
	if n.held == nil {
		return nil, false
	}
	return n.held, true
}

// MoveTo has n read from t, where it was stored, from now on, and lets go
// of what resolving held of it.
func (n *Node) MoveTo(t *target.Target) {
	n.Target, n.held = t, nil
}

// Reference is the reference of a registry or layout package, as its
// declaration was parsed, without the digest when it names a tag; the
// zero Reference for a package directory.
func (n *Node) Reference() reference.Reference { return n.ref }

// Name is how messages name the node.
func (n *Node) Name() string { return n.Ref }

// PackageRef is the node as a dependency record: a reference resolved
// through a range or the repository's default is recorded with the tag
// it resolved to, which says which version it was.
func (n *Node) PackageRef() artifact.PackageRef {
	ref := n.Ref
	if n.Git != nil {
		ref = n.Git.resolvedRef()
	} else if n.Tag != "" {
		ref += ":" + n.Tag
	}
	return artifact.PackageRef{Digest: n.Digest, Kind: artifact.KindPackage, Ref: ref}
}

// Graph is a resolved set of packages.
type Graph struct {
	// Direct are the packages resolved from the declarations, in their
	// order: the sources named, or a built project's dependencies.
	Direct []*Node
	// Root is the one source when a single one was resolved: the consuming
	// package, whose own dependencies are layered under it.
	Root *Node
	// Order is every package, lowest precedence first; see layOut.
	Order   []*Node
	targets []*target.Target
	// ahead holds the layers Source fetches ahead (Options.FetchLayers);
	// nil when it fetches none.
	ahead *layersAhead
}

// Close stops the layers still being fetched ahead, and releases every
// target the graph opened.
func (g *Graph) Close() error {
	g.ahead.stop()
	var errs []error
	for _, t := range g.targets {
		errs = append(errs, t.Close())
	}
	return errors.Join(errs...)
}

type resolver struct {
	ctx   context.Context
	opts  Options
	graph *Graph
	// byKey holds the first node seen for each reference.
	byKey map[string]*Node
	// visited holds nodes by (key, digest), so each is resolved once.
	visited map[string]*Node
	// stack holds the keys being resolved, for cycle detection.
	stack []string
	// mirrors maps a dependency's declaration to the registry of the
	// package that declared it (see lookUpMirrored).
	mirrors map[string]string
	// ranges are the version ranges of the declarations and of the
	// packages built projects declare, by declaration as written: a
	// dependency written as a declaration in a range is looked up in it.
	// The walk adds to them while lookups ahead read them (see rangeOf).
	// A pin wins over a range, and then no tag is listed.
	ranges   map[string]*semver.Range
	rangesMu sync.Mutex
	// ahead fetches what the walk is about to reach (see prefetch).
	ahead *prefetcher
	// named are the registries the consumer's own declarations name,
	// lower-cased: those a package from elsewhere may name even when
	// they are private (see checkReach).
	named map[string]bool
}

// Resolve resolves decls, declared by the package at base (relative paths
// are relative to it). A declaration in a version range that names
// neither tag nor digest resolves to the tag of the highest version its
// range allows. A failure names where the declaration it came through
// was written (see declaration.Declaration.Wrap). The graph must be
// closed.
func Resolve(ctx context.Context, decls []declaration.Declaration, base string, opts Options) (*Graph, error) {
	r := newResolver(ctx, opts)
	for _, d := range decls {
		if d.Range != nil {
			r.ranges[d.Written] = d.Range
		}
	}
	for _, d := range decls {
		r.noteNamed(d)
		r.prefetch(d, "", 1)
	}
	r.prefetchPins(decls)
	for _, d := range decls {
		n, err := r.resolve(d, base, nil)
		if err != nil {
			r.finish()
			r.graph.Close()
			return nil, d.Wrap(err)
		}
		r.graph.Direct = append(r.graph.Direct, n)
	}
	r.finish()
	if len(decls) == 1 {
		r.graph.Root = r.graph.Direct[0]
	}
	r.graph.layOut()
	return r.graph, nil
}

func newResolver(ctx context.Context, opts Options) *resolver {
	ranges := map[string]*semver.Range{}
	g := &Graph{}
	if opts.FetchLayers != nil && opts.Source != nil {
		g.ahead = newLayersAhead(ctx)
	}
	return &resolver{ctx: ctx, opts: opts, graph: g, byKey: map[string]*Node{}, visited: map[string]*Node{}, ranges: ranges,
		ahead: newPrefetcher(ctx, opts.Concurrency)}
}

func (r *resolver) resolve(d declaration.Declaration, base string, parent []string) (*Node, error) {
	path := append(append([]string{}, parent...), d.Written)
	if d.Kind == declaration.Git {
		return r.resolveGit(d, path)
	}
	key, identity, dir, err := r.identify(d, base)
	if err != nil {
		class := errdefs.Unresolved
		if errors.Is(err, reference.ErrInvalid) {
			class = errdefs.InvalidArgument // the user's to fix, as in every command
		}
		return nil, errdefs.With(class, fmt.Errorf("%s: %w", chain(path), err))
	}
	if err := CheckNesting(path, r.stack, identity); err != nil {
		return nil, err
	}
	r.stack = append(r.stack, identity)
	defer func() { r.stack = r.stack[:len(r.stack)-1] }()

	var n *Node
	if dir != "" {
		n, err = r.build(d.Written, key, dir, path)
	} else {
		n, err = r.fetch(inBase(d, base), key, path)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// inBase is d with the directory of its oci: layout, when relative, taken
// from base, as identify takes it for d's key: the project's, for a
// stax.yaml or a command-line path (source.Declaration), not the
// directory stax runs in.
func inBase(d declaration.Declaration, base string) declaration.Declaration {
	if d.Ref.IsLayout() && !filepath.IsAbs(d.Ref.Layout) {
		d.Ref.Layout = filepath.Join(base, d.Ref.Layout)
	}
	return d
}

// identify gives a declaration its key (for conflicts), its identity (for
// cycles: the repository or directory, whatever the version) and, for a
// directory, its absolute path.
func (r *resolver) identify(d declaration.Declaration, base string) (key, identity, dir string, err error) {
	if d.Kind == declaration.Directory {
		dir = d.Written
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
		if dir, err = filepath.Abs(dir); err != nil {
			return "", "", "", err
		}
		return dir, dir, dir, nil
	}
	ref := inBase(d, base).Ref
	keyRef := ref
	if keyRef.Tag != "" {
		keyRef.Digest = ""
	}
	return keyRef.Familiar(), ref.Name(), "", nil
}

// CheckNesting is the one check of a step down a chain of dependencies,
// whoever walks it: resolving, or pushing a package's dependencies out
// before it (pkg/publish). path is the chain as messages name it, the
// step last; above identifies each package before the step, in order,
// and id the step's package. A chain deeper than MaxDepth is refused,
// and so is a step to a package above it, naming the cycle from that
// package on.
func CheckNesting(path, above []string, id string) error {
	if len(path) > MaxDepth {
		return errdefs.Resolution(fmt.Errorf("packages nest deeper than %d: %s", MaxDepth, chain(path)))
	}
	if i := slices.Index(above, id); i >= 0 {
		return errdefs.Resolution(fmt.Errorf("dependency cycle: %s", chain(path[i:])))
	}
	return nil
}

// chain is how a message names a path of declarations, the first
// declaring the next. The declarations come from stax.yaml files and
// packages, so each is escaped (termtext.Escape): the message quotes it
// once, as written, without the escape sequences or line feeds in it
// reaching the terminal.
func chain(path []string) string {
	escaped := make([]string, len(path))
	for i, decl := range path {
		escaped[i] = termtext.Escape(decl)
	}
	return strings.Join(escaped, " → ")
}

// packageName is how messages name a package directory.
func packageName(p *staxyaml.Project) string {
	if p.Definition != nil && p.Definition.Name != "" {
		return p.Definition.Name
	}
	return p.Root
}

// fetch opens a reference, resolves it to a digest, and resolves the
// dependencies its config recorded.
func (r *resolver) fetch(d declaration.Declaration, key string, path []string) (*Node, error) {
	decl, ref := d.Written, d.Ref
	var pinnedTag string
	if ref.Digest == "" {
		if pinned, ok := r.opts.Pins[key]; ok {
			ref.Digest, pinnedTag = pinned, r.opts.PinTags[key]
		}
		// Else, with no tag either, looking it up takes the repository's
		// default (target.DefaultTag).
	}
	found, err := r.locate(d, key, ref, path)
	if err != nil {
		return nil, err
	}
	if n, done, err := r.seen(key, found.desc.Digest, path); done || err != nil {
		return n, err
	}
	pkg, held, err := r.read(found, path)
	if err != nil {
		return nil, err
	}
	t := found.t
	n := &Node{Ref: decl, Key: key, Digest: found.desc.Digest, Package: pkg, Target: t, Path: path, held: held, ref: ref}
	if n.ref.Tag != "" {
		n.ref.Digest = ""
	}
	switch {
	case ref.Tag == "" && ref.Digest == "":
		// What Lookup or the range chose.
		n.Tag = t.Ref.Tag
	case ref.Tag == "":
		n.Tag = pinnedTag
	}
	if rng := r.rangeOf(decl); rng != nil {
		n.Range = rng.String()
	}
	r.remember(n)
	if err := r.resolveDependencies(n, t, path); err != nil {
		return nil, err
	}
	return n, nil
}

// locate finds the manifest ref names, d as the walk pinned it: in an
// oci: layout, in the local store for a name without a registry host,
// else on its registry (or the mirror, see lookUpMirrored), through what
// was fetched ahead when that was started. Its errors name path.
func (r *resolver) locate(d declaration.Declaration, key string, ref reference.Reference, path []string) (*looked, error) {
	decl := d.Written
	switch {
	case ref.IsLayout():
		return r.locateLayout(decl, ref, path)
	case !d.IsRemote():
		if l := r.lookUpMirrored(r.ctx, r.mirrors[decl], ref); l != nil {
			return l, nil
		}
		// A name without a registry host is a tag of the local store, as
		// pack -t writes it: a mistyped one is not a Docker Hub request.
		// A range chooses among the store's tags as among a registry's.
		var selectTag func(*target.Target) error
		if rng := r.rangeOf(decl); rng != nil {
			selectTag = func(t *target.Target) error { return selectInRange(r.ctx, t, rng) }
		}
		t, desc, err := r.opts.Source.LookupStored(r.ctx, ref, selectTag)
		if err != nil {
			return nil, resolutionError(path, err)
		}
		r.graph.targets = append(r.graph.targets, t)
		return &looked{t: t, desc: desc, local: true}, nil
	}
	mirror := r.mirrors[decl]
	// A dependency listed without a digest that reads like a declaration
	// with a range is looked up here, in the range.
	l := r.taken(d, mirror, len(path))
	if l == nil {
		var selectTag func(*target.Target) error
		if rng := r.rangeOf(decl); rng != nil {
			selectTag = func(t *target.Target) error { return selectInRange(r.ctx, t, rng) }
		}
		l = r.lookUp(r.ctx, ref, mirror, selectTag)
	}
	if l.openErr != nil {
		return nil, l.openErr
	}
	if l.lookupErr != nil {
		return nil, resolutionError(path, r.pinGone(key, ref.Digest, l.lookupErr))
	}
	return l, nil
}

// locateLayout finds the manifest ref, an oci: layout's reference, names
// there, in decl's range. A dependency's layout must already be there.
func (r *resolver) locateLayout(decl string, ref reference.Reference, path []string) (*looked, error) {
	t, err := r.opts.Source.Open(r.ctx, ref)
	if err != nil {
		// A layout that is not there, or not a layout, is the file
		// system's error (see store.CheckLayout); the rest, unresolved.
		class := errdefs.Unresolved
		if errdefs.Of(err) == errdefs.Local {
			class = errdefs.Local
		}
		return nil, errdefs.Reclassify(class, resolutionError(path, err))
	}
	r.graph.targets = append(r.graph.targets, t)
	l := &looked{t: t, local: true}
	if err = selectInRange(r.ctx, t, r.rangeOf(decl)); err == nil {
		l.desc, err = t.Lookup(r.ctx)
	}
	if err != nil {
		return nil, errdefs.Reclassify(errdefs.Unresolved, resolutionError(path, err))
	}
	return l, nil
}

// read reads and vets the package l found: a registry's through what
// its lookup held (see check), one of a layout or the local store from
// there.
func (r *resolver) read(l *looked, path []string) (*artifact.Package, *heldBlobs, error) {
	if !l.local {
		r.check(r.ctx, l)
		if l.checkErr != nil {
			return nil, nil, resolutionError(path, l.checkErr)
		}
		return l.pkg, l.held, nil
	}
	pkg, err := transfer.Check(r.ctx, l.t, l.desc, r.opts.MaxSize)
	if err != nil {
		return nil, nil, resolutionError(path, err)
	}
	if err := recordLayerSkills(r.ctx, l.t, pkg, r.opts.Limits); err != nil {
		return nil, nil, resolutionError(path, err)
	}
	return pkg, nil, nil
}

// resolveDependencies resolves the dependencies the package of n, a
// registry or layout package read from t, records, as n's children.
func (r *resolver) resolveDependencies(n *Node, t *target.Target, path []string) error {
	deps, err := dependenciesOf(n.Package, n.Ref)
	if err != nil {
		return errdefs.Invalid(resolutionError(path, err))
	}
	for _, dep := range deps {
		if dep.Kind != declaration.Directory {
			r.prefetch(dep, registryOf(t), len(path)+1)
		}
	}
	for i, dep := range n.Package.Config.Packages {
		pinned := deps[i]
		if pinned.Kind == declaration.Directory {
			return errdefs.Resolution(fmt.Errorf("%s depends on the directory %s, which only resolves in a source checkout: publish it and depend on its reference",
				chain(path), dep.Ref))
		}
		if err := r.checkReach(registryOf(t), pinned, path); err != nil {
			return err
		}
		r.noteMirror(pinned.Written, t)
		child, err := r.resolve(pinned, "", path)
		if err != nil {
			return missingDependency(err)
		}
		child.Ref = dep.Ref
		n.Children = append(n.Children, child)
	}
	return nil
}

// dependenciesOf are the dependencies pkg records, where they enter
// resolving, declared by from: each its reference, pinned to the digest
// recorded, or a directory, which a published package cannot depend on.
// A dependency recorded without a digest (other stax writers list theirs
// so) resolves by its reference, as a declaration does.
func dependenciesOf(pkg *artifact.Package, from string) ([]declaration.Declaration, error) {
	where := declaration.Where{File: from}
	deps := make([]declaration.Declaration, 0, len(pkg.Config.Packages))
	for _, dep := range pkg.Config.Packages {
		written := dep.Ref
		if !declaration.IsPath(written) && dep.Digest != "" && !strings.Contains(written, "@") {
			written += "@" + dep.Digest.String()
		}
		d, err := declaration.Parse(written, where)
		if err != nil {
			return nil, err
		}
		deps = append(deps, d)
	}
	return deps, nil
}

// selectInRange gives t, when it names neither tag nor digest and rng is
// set, the tag of the highest version rng allows among its repository's
// tags. None in range is a resolution failure listing the tags there are.
func selectInRange(ctx context.Context, t *target.Target, rng *semver.Range) error {
	if rng == nil || t.Ref.Tag != "" || t.Ref.Digest != "" {
		return nil
	}
	repo := t.Ref
	repo.Tag, repo.Digest = "", ""
	tags, err := t.Tags(ctx)
	if err != nil {
		return err
	}
	tag, ok := semver.Highest(tags, rng)
	if !ok {
		hint := ""
		if len(tags) == 0 {
			hint = t.NearRepositoryHint(ctx)
		}
		return errdefs.Resolution(fmt.Errorf("no tag of %s is a version in the range %s: %s%s",
			repo.Familiar(), rng, describeTags(tags), hint))
	}
	t.Ref.Tag = tag
	return nil
}

// maxTagsListed is how many tags a message about a range lists.
const maxTagsListed = 20

// describeTags lists tags as a message does, versions highest first,
// without the tags named after digests.
func describeTags(tags []string) string {
	listed := target.SomeTags(tags, "", maxTagsListed)
	if listed == "" {
		return "it has no tags"
	}
	return "its tags are " + listed + " (a pre-release is in a range only when the range names one)"
}

// Dependencies resolves, for pack.Project, the packages a project
// declares. The package directories among them are built as the project
// is, with the options pack.Project is given: opts.Build is not used.
func Dependencies(opts Options) pack.Resolver {
	return dependencies(opts)
}

// dependencies is the pack.Resolver Dependencies returns.
type dependencies Options

// Resolve resolves the packages p declares, in their order, to the records
// of them p's package keeps. What resolution opened is released before it
// returns: the build of p reads none of it.
func (d dependencies) Resolve(ctx context.Context, p *staxyaml.Project, build pack.Options) ([]artifact.PackageRef, error) {
	opts := Options(d)
	opts.Build = build
	r := newResolver(ctx, opts)
	defer r.graph.Close()
	defer r.finish()
	root, err := filepath.Abs(p.Root)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	r.stack = append(r.stack, root)
	_, deps, err := r.declared(p, []string{p.Root})
	return deps, err
}

// statDirectory checks that dir, a package directory a declaration on
// path names, is a directory (an oci: layout is checked by
// store.CheckLayout). One that is not is the file system's answer (exit
// 2), not a package that failed to resolve: the error names what it
// looked for where, and fix.
func statDirectory(dir, what, fix string, path []string) error {
	info, err := os.Stat(dir)
	if err == nil && info.IsDir() {
		return nil
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("no %s at %s: %s", what, dir, fix)
	}
	return errdefs.MarkLocal(fmt.Errorf("%s: %w", chain(path), err))
}

// build resolves a package directory's own dependencies, then builds it
// into a temporary layout recording them.
func (r *resolver) build(decl, key, dir string, path []string) (*Node, error) {
	if err := statDirectory(dir, "package directory", "name a directory that holds the package's skills, or a registry reference", path); err != nil {
		return nil, err
	}
	p, err := staxyaml.Open(dir)
	if err != nil {
		return nil, err
	}
	var (
		res      *pack.Result
		children []*Node
	)
	t, err := r.opts.Source.OpenBuilt(r.ctx, "resolve", func(pusher content.Pusher) (ocispec.Descriptor, error) {
		if res, children, err = r.buildInto(p, pusher, path); err != nil {
			return ocispec.Descriptor{}, err
		}
		return res.Descriptor, nil
	})
	if err != nil {
		return nil, err
	}
	r.graph.targets = append(r.graph.targets, t)
	if n, done, err := r.seen(key, res.Descriptor.Digest, path); done || err != nil {
		return n, err
	}
	pkg, err := transfer.CheckBuilt(r.ctx, t, res.Descriptor, res.Config, res.ConfigDescriptor, r.opts.MaxSize)
	if err != nil {
		return nil, err
	}
	n := &Node{Ref: decl, Key: key, Digest: res.Descriptor.Digest, Package: pkg, Target: t, Dir: dir, Children: children, Path: path}
	r.remember(n)
	return n, nil
}

// buildInto resolves p's declared packages and builds p into pusher.
func (r *resolver) buildInto(p *staxyaml.Project, pusher content.Pusher, path []string) (*pack.Result, []*Node, error) {
	children, deps, err := r.declared(p, path)
	if err != nil {
		return nil, nil, err
	}
	build := r.opts.Build
	build.Project, build.Dependencies = p, deps
	res, err := pack.Build(r.ctx, pusher, build)
	if err != nil {
		return nil, nil, err
	}
	return res, children, nil
}

// declared resolves the packages p declares, as nodes and as the records
// of them p's package keeps.
func (r *resolver) declared(p *staxyaml.Project, path []string) ([]*Node, []artifact.PackageRef, error) {
	var children []*Node
	var deps []artifact.PackageRef
	if p.Definition != nil {
		decls, err := r.declaredBy(p)
		if err != nil {
			return nil, nil, err
		}
		r.noteDeclared(decls, path)
		for i, dep := range p.Definition.Packages {
			child, err := r.resolve(decls[i], p.Root, path)
			if err != nil && r.opts.Build.Publish && dep.Path != "" {
				err = fmt.Errorf("%w\n%s is the published reference of %s: publish it first, or push with --push-dependencies", err, dep.Ref, dep.Path)
			}
			if err != nil {
				return nil, nil, decls[i].Wrap(err)
			}
			children = append(children, child)
			deps = append(deps, child.PackageRef())
		}
	}
	return children, deps, nil
}

// declaredBy are the packages p declares, where they enter resolving:
// their references when p is being published, which cannot depend on a
// directory, else their directories. Their ranges are noted.
func (r *resolver) declaredBy(p *staxyaml.Project) ([]declaration.Declaration, error) {
	if r.opts.Build.Publish {
		for _, dep := range p.Definition.Packages {
			if dep.Ref == "" {
				return nil, errdefs.Resolution(&pack.PathDependencyError{Package: packageName(p), Path: dep.Path})
			}
		}
	}
	decls, err := staxyaml.Declarations(p.Definition.Packages, filepath.Join(p.Root, staxyaml.FileName), r.opts.Build.Publish)
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	r.rangesMu.Lock()
	defer r.rangesMu.Unlock()
	for _, d := range decls {
		if d.Range != nil {
			r.ranges[d.Written] = d.Range
		}
	}
	return decls, nil
}

// noteDeclared notes every registry decls name, all before any of them
// is resolved: a dependency of the first may name the registry of the
// last (see checkReach), whatever their order in stax.yaml. Those
// without a version are fetched ahead.
func (r *resolver) noteDeclared(decls []declaration.Declaration, path []string) {
	for _, d := range decls {
		r.noteNamed(d)
		if !r.opts.Build.Publish && d.Range == nil {
			r.prefetch(d, "", len(path)+1)
		}
	}
}

// rangeOf is the version range of decl, nil for none.
func (r *resolver) rangeOf(decl string) *semver.Range {
	r.rangesMu.Lock()
	defer r.rangesMu.Unlock()
	return r.ranges[decl]
}

// seen returns the node already resolved for (key, dgst), or a conflict
// error when key resolved to another digest before.
func (r *resolver) seen(key string, dgst digest.Digest, path []string) (*Node, bool, error) {
	if n, ok := r.visited[key+"@"+dgst.String()]; ok {
		return n, true, nil
	}
	if first, ok := r.byKey[key]; ok && first.Digest != dgst {
		name, _, _ := strings.Cut(key, "@")
		return nil, false, errdefs.Resolution(fmt.Errorf(
			"%s resolves to two digests:\n  %s via %s\n  %s via %s\npin one of them in stax.yaml, e.g. %s@%s",
			key, first.Digest, chain(first.Path), dgst, chain(path), name, first.Digest))
	}
	return nil, false, nil
}

func (r *resolver) remember(n *Node) {
	r.visited[n.Key+"@"+n.Digest.String()] = n
	if _, ok := r.byKey[n.Key]; !ok {
		r.byKey[n.Key] = n
	}
}

// resolutionError keeps registry and validation codes, and names the path.
func resolutionError(path []string, err error) error {
	return fmt.Errorf("resolve %s: %w", chain(path), err)
}

// pinGone says of err, the failure to look up a package at the digest
// stax.lock pins for key, that the registry no longer has that digest and
// how to move on: the repository and tag are fine, the locked version
// was withdrawn.
func (r *resolver) pinGone(key string, d digest.Digest, err error) error {
	if pinned, ok := r.opts.Pins[key]; !ok || pinned != d || !errors.Is(err, errdef.ErrNotFound) {
		return err
	}
	return fmt.Errorf("%w; stax.lock pins %s at %s, which the registry no longer has: run `stax update %s` to take the newest version stax.yaml allows", err, termtext.Escape(key), d, termtext.Escape(staxyaml.PackageOf(key)))
}

// Source is where Resolve finds packages: registries, oci: layouts and
// the local store as one, in the manner of oras-go's content interfaces.
// Every package Resolve reads, it opens through a Source, and through the
// targets it opens it lists tags, resolves a tag or digest to a manifest,
// and reads manifests, configs and layers; what the Source keeps of them
// (the local store) is its own business. pkg/cache implements it over a
// target.Opener; Resolve stores nothing itself.
type Source interface {
	// Open opens the registry repository or oci: layout ref names, for
	// reading only.
	Open(ctx context.Context, ref reference.Reference) (*target.Target, error)
	// OpenPinned opens the registry repository of ref, a reference pinned
	// by digest, reading the package from the local store when it holds
	// it: a digest names the same bytes wherever they are.
	OpenPinned(ctx context.Context, ref reference.Reference) (*target.Target, error)
	// LookupStored finds ref, a name without a registry host, among the
	// local store's tags, and opens it there; a failure says what the
	// store holds instead. selectTag, when set, gives the target its tag
	// before it is looked up (a range's). The target is open only when
	// err is nil.
	LookupStored(ctx context.Context, ref reference.Reference, selectTag func(*target.Target) error) (*target.Target, ocispec.Descriptor, error)
	// FetchLayer starts keeping layer, the skills layer of a package read
	// from t, in the local store ahead of the graph's being stored (see
	// Options.FetchLayers), and returns a channel closed once that has
	// ended; nil when it keeps nothing so, or started that layer already.
	// It only saves work: a fetch that fails, or is stopped when ctx is
	// done, leaves nothing kept.
	FetchLayer(ctx context.Context, t *target.Target, layer ocispec.Descriptor) <-chan struct{}
	// OpenBuilt has build write a package built from a directory into a
	// temporary layout, in a scratch directory named after name, and
	// opens it there; closing the target removes the layout.
	OpenBuilt(ctx context.Context, name string, build func(content.Pusher) (ocispec.Descriptor, error)) (*target.Target, error)
}
