package workflow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// OutdatedOptions say whose packages Outdated checks.
type OutdatedOptions struct {
	// ProjectDir is where stax.yaml and stax.lock are; empty is the
	// current directory.
	ProjectDir string
}

// OutdatedResult is, for every source of install.sources that is a
// reference and every dependency stax.lock records, the version locked,
// the one an update would take and the highest published.
type OutdatedResult struct {
	Packages []OutdatedPackage `json:"packages"`
}

// OutdatedPackage is one package of an OutdatedResult. A version that is
// not known (a tag such as latest, or a package not locked yet) is empty.
type OutdatedPackage struct {
	// Ref is the repository, without tag or digest.
	Ref string `json:"ref"`
	// Range is the version range of the source; empty for none.
	Range string `json:"range,omitempty"`
	// Locked is the version stax.lock holds (or its tag when the tag is
	// not a version).
	Locked string `json:"locked"`
	// Wanted is what stax update would install: the highest version the
	// range allows, the tag the source names, or for a source naming
	// neither the highest release. A dependency wants what its package
	// recorded, its locked version.
	Wanted string `json:"wanted"`
	// Latest is the highest release of the repository (not a
	// pre-release).
	Latest string `json:"latest"`
	// Dependency is set for a package installed as another's dependency.
	Dependency bool `json:"dependency,omitempty"`
	// Moved is set when the tag of Wanted, the version locked, names
	// another digest than the one locked now: it was pushed over.
	Moved bool `json:"moved,omitempty"`
	// Outdated is set when Wanted or Latest is a higher version than
	// Locked, when the tag moved, or when nothing is locked yet.
	Outdated bool `json:"outdated"`
}

// Outdated reports whether any package is outdated.
func (r *OutdatedResult) Outdated() bool {
	for _, p := range r.Packages {
		if p.Outdated {
			return true
		}
	}
	return false
}

// DefaultListingConcurrency is how many repositories outdated and update
// ask for their tags at once, unless Env.Concurrency says otherwise. Their
// requests are small (a tag list, a manifest's digest) and a project
// names a few tens of repositories, so most projects are asked all at
// once: the wait is then one repository's, not their sum.
const DefaultListingConcurrency = 20

// listingConcurrency is how many repositories env asks at once.
func listingConcurrency(env *Env) int {
	if env.Concurrency > 0 {
		return env.Concurrency
	}
	return DefaultListingConcurrency
}

// rememberingTags is a copy of e whose opener remembers the tags of the
// registry repositories it lists (see target.TagMemo), for a job that
// reads them more than once and writes none.
func (e *Env) rememberingTags() *Env {
	opener := *e.Opener
	opener.TagMemo = target.NewTagMemo()
	remembering := *e
	remembering.Opener = &opener
	return &remembering
}

// Outdated lists the tags of every repository the project installs from,
// each once, and compares them with stax.lock. It reads stax.yaml and
// stax.lock, under the project's lock, and changes neither.
func Outdated(ctx context.Context, env *Env, opts OutdatedOptions) (*OutdatedResult, error) {
	// Read under the project's lock, which first finishes or undoes an
	// install a crash interrupted: stax.yaml and stax.lock are then a
	// pair. It is released before the registries are asked.
	m, err := env.projectFileFor(ctx, Folders{ProjectDir: opts.ProjectDir}, false)
	if err != nil {
		return nil, err
	}
	locked, err := readLock(m.dir)
	m.close()
	if err != nil {
		return nil, err
	}
	if len(m.sources()) == 0 {
		if err := m.absent("compare"); err != nil {
			return nil, err
		}
		return nil, errdefs.Invalid(fmt.Errorf("%s lists no install.sources: there is nothing to compare", m.path))
	}
	entries, err := outdatedEntries(m, locked)
	if err != nil {
		return nil, err
	}
	// Registries and git repositories are asked at the same time: each
	// job writes only its own entries.
	err = inorder.Concurrently(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			return compareWithRegistries(ctx, env, entries)
		}
		return compareWithGitRepositories(ctx, env, entries)
	})
	if err != nil {
		return nil, err
	}
	res := &OutdatedResult{Packages: []OutdatedPackage{}}
	for _, e := range entries {
		res.Packages = append(res.Packages, e.OutdatedPackage)
	}
	return res, nil
}

// compareWithRegistries lists the tags of each repository the entries
// name, once however many name it, compares its entries with them, and
// looks up the tags they want to find those moved. The repositories are
// asked at once, up to env's concurrency; the error reported is the one
// asking them one after the other, in the order the entries first name
// them, would.
func compareWithRegistries(ctx context.Context, env *Env, entries []outdatedEntry) error {
	var repos [][]int // the entries of each repository, by first appearance
	index := map[string]int{}
	for i := range entries {
		// Only the fields no job writes are read: compareWithGitRepositories
		// fills in the git entries meanwhile.
		if entries[i].git != nil {
			continue
		}
		name := tagSource{entries[i].repo, entries[i].local}.key()
		r, ok := index[name]
		if !ok {
			r = len(repos)
			index[name] = r
			repos = append(repos, nil)
		}
		repos[r] = append(repos[r], i)
	}
	// A lookup that finds the tag listed gone asks for the tags again, to
	// name those there are: they are remembered.
	env = env.rememberingTags()
	return inorder.Concurrently(ctx, len(repos), listingConcurrency(env), func(ctx context.Context, r int) error {
		return compareWithRepository(ctx, env, entries, repos[r])
	})
}

// compareWithRepository lists the tags of the repository of the entries
// at indices, compares those entries with them, and looks up the tags
// they want. The tag a source is expected to want — the one it names,
// or the one locked, which its range wants as long as nothing newer is
// in it — is looked up while the tags are listed, so that an up-to-date
// project costs one round trip, not two; the lookup of a tag not wanted
// after all is dropped.
func compareWithRepository(ctx context.Context, env *Env, entries []outdatedEntry, indices []int) error {
	first := entries[indices[0]]
	t, err := tagSource{first.repo, first.local}.open(ctx, env)
	if err != nil {
		return err
	}
	defer t.Close()
	lookupCtx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() { stop(); running.Wait() }()
	lookups := map[string]*tagLookup{}
	lookUp := func(tag string) *tagLookup {
		l := &tagLookup{done: make(chan struct{})}
		lookups[tag] = l
		running.Add(1)
		go func() {
			defer running.Done()
			defer close(l.done)
			ref := t.Ref
			ref.Tag = tag
			l.desc, l.err = t.WithRef(ref).Lookup(lookupCtx)
		}()
		return l
	}
	for _, i := range indices {
		if tag := entries[i].expectedTag(); tag != "" && lookups[tag] == nil {
			lookUp(tag)
		}
	}
	tags, err := t.Tags(ctx)
	if err != nil {
		return err
	}
	for _, i := range indices {
		e := &entries[i]
		e.compare(tags)
		if e.dep == nil || !e.listed || e.lockedDigest == "" || e.Wanted != e.Locked {
			continue
		}
		l := lookups[e.wantedTag]
		if l == nil {
			l = lookUp(e.wantedTag)
		}
		<-l.done
		if l.err != nil {
			return l.err
		}
		if l.desc.Digest != e.lockedDigest {
			e.Moved, e.Outdated = true, true
		}
	}
	return nil
}

// tagLookup is the lookup of a tag, done when done is closed.
type tagLookup struct {
	done chan struct{}
	desc ocispec.Descriptor
	err  error
}

// expectedTag is the tag a source that locks a digest is expected to
// want before its repository's tags are known: the tag it names, else
// the tag it was locked through. Empty for a dependency, a source
// naming a digest, or one not locked.
func (e *outdatedEntry) expectedTag() string {
	switch {
	case e.dep == nil || e.byDigest || e.lockedDigest == "":
		return ""
	case e.tag != "":
		return e.tag
	}
	return e.lockedTag
}

// readLock reads the project's stax.lock; nil when there is none.
func readLock(dir string) (*lock.Lock, error) {
	l, err := lock.Read(filepath.Join(dir, lock.FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return l, err
}

// outdatedEntry is a package to compare with its repository's tags.
type outdatedEntry struct {
	OutdatedPackage
	repo reference.Reference
	// dep is the source's declaration; nil for a dependency.
	dep *staxyaml.Dependency
	rng *semver.Range
	// tag is the tag the source names; empty for none.
	tag string
	// byDigest is set for a source that names a digest and no tag.
	byDigest bool
	// lockedDigest is the digest locked; empty for none.
	lockedDigest digest.Digest
	// lockedTag is the tag the digest was locked through; empty for none.
	lockedTag string
	// wantedTag is the tag of Wanted; empty when no tag is wanted.
	wantedTag string
	// listed is set when the repository lists wantedTag.
	listed bool
	// git is set for a git source, compared by compareGit.
	git *gitOutdated
	// local is set for a repository named without a registry host, one
	// of the local store, as install takes it.
	local bool
}

// outdatedEntries are the sources of m that are references, then the
// other registry and git packages l records (dependencies).
func outdatedEntries(m *projectFile, l *lock.Lock) ([]outdatedEntry, error) {
	var entries []outdatedEntry
	sourceOf := map[string]bool{}
	deps := m.sources()
	decls, err := m.declared(deps, nil)
	if err != nil {
		return nil, err
	}
	for i, d := range decls {
		if d.Kind == declaration.Directory {
			continue
		}
		if d.Kind == declaration.Git {
			dep := deps[i]
			entries = append(entries, gitOutdatedEntry(&dep, d, l))
			sourceOf[d.Package()] = true
			continue
		}
		dep, ref := deps[i], d.Ref
		e := outdatedEntry{dep: &dep, rng: d.Range, tag: ref.Tag, byDigest: ref.Tag == "" && ref.Digest != "", OutdatedPackage: OutdatedPackage{Range: dep.Version}}
		src := tagSourceOf(d, m.dir)
		e.repo, e.local = src.repo, src.local
		e.Ref = e.repo.Familiar()
		if p, ok := lockedSource(l, d.Package()); ok {
			e.Locked, e.lockedDigest, e.lockedTag = lockedVersion(l, p), p.Digest, lockedTag(l, p)
		}
		sourceOf[d.Package()] = true
		entries = append(entries, e)
	}
	if l == nil {
		return entries, nil
	}
	for _, p := range l.Packages {
		d, ok := l.Declaration(p)
		if !ok || sourceOf[d.Package()] {
			continue
		}
		switch d.Kind {
		case declaration.Registry:
			src := tagSourceOf(d, m.dir)
			e := outdatedEntry{repo: src.repo, local: src.local, OutdatedPackage: OutdatedPackage{Locked: lockedVersion(l, p), Dependency: true}}
			e.Ref = e.repo.Familiar()
			entries = append(entries, e)
		case declaration.Git:
			entries = append(entries, gitDependencyEntry(d, p))
		}
		// A directory a package names has no versions to compare.
	}
	return entries, nil
}

// repositoryOf is ref without tag or digest, a relative layout taken from
// the project directory as resolve takes it.
func repositoryOf(ref reference.Reference, dir string) reference.Reference {
	ref.Tag, ref.Digest = "", ""
	if ref.IsLayout() && !filepath.IsAbs(ref.Layout) {
		ref.Layout = filepath.Join(dir, ref.Layout)
	}
	return ref
}

// lockedSource is the package l records for the source of pkg.
func lockedSource(l *lock.Lock, pkg string) (lock.Package, bool) {
	if l == nil {
		return lock.Package{}, false
	}
	for _, p := range l.Packages {
		if l.PackageOf(p) == pkg {
			return p, true
		}
	}
	return lock.Package{}, false
}

// lockedVersion is the version a locked package was resolved to, read
// from its lockedTag; the tag itself when that is not a version; empty
// when it has none.
func lockedVersion(l *lock.Lock, p lock.Package) string {
	if p.Version != "" {
		return p.Version
	}
	return tagVersion(lockedTag(l, p))
}

// lockedTag is the tag a locked package was resolved through, else the
// tag of its reference; empty when it has neither.
func lockedTag(l *lock.Lock, p lock.Package) string {
	if p.Tag != "" {
		return p.Tag
	}
	if d, ok := l.Declaration(p); ok {
		return d.Ref.Tag
	}
	return ""
}

// tagVersion is the version tag reads as, or tag when it is not one.
func tagVersion(tag string) string {
	if v, ok := semver.ParseTag(tag); ok {
		return v.String()
	}
	return tag
}

// compare fills in Wanted, Latest and Outdated from the repository's tags.
func (e *outdatedEntry) compare(tags []string) {
	if latest, ok := semver.Highest(tags, nil); ok {
		e.Latest = tagVersion(latest)
	}
	switch {
	case e.dep == nil || e.byDigest:
		e.Wanted = e.Locked
	case e.rng != nil:
		e.wantedTag, _ = semver.Highest(tags, e.rng)
	case e.tag != "":
		e.wantedTag = e.tag
	default:
		e.wantedTag = target.DefaultTag(tags)
	}
	if e.wantedTag != "" {
		e.Wanted = tagVersion(e.wantedTag)
		// A tag the registry does not list (deleted since) has nothing to
		// look up.
		e.listed = slices.Contains(tags, e.wantedTag)
	}
	e.Outdated = e.Locked == "" || newer(e.Wanted, e.Locked) || newer(e.Latest, e.Locked)
}

// newer reports whether a is a higher version than b; false when either
// is not a version.
func newer(a, b string) bool {
	av, aok := semver.ParseTag(a)
	bv, bok := semver.ParseTag(b)
	return aok && bok && semver.Compare(av, bv) > 0
}

// tagSource is a repository whose tags are listed: of a registry, or of
// the local store for a name written without a registry host.
type tagSource struct {
	repo  reference.Reference
	local bool
}

// tagSourceOf is the repository of d, a registry or layout declaration,
// whose tags are listed; a relative layout is taken from dir.
func tagSourceOf(d declaration.Declaration, dir string) tagSource {
	return tagSource{repo: repositoryOf(d.Ref, dir), local: d.Kind == declaration.Registry && !d.IsRemote()}
}

// key tells the repositories apart: a name of the local store and the
// registry repository it would read as are not the same.
func (s tagSource) key() string {
	if s.local {
		return "local " + s.repo.Name()
	}
	return s.repo.Name()
}

// open opens the repository of s for reading: in the local store for a
// name without a registry host, else where it names.
func (s tagSource) open(ctx context.Context, env *Env) (*target.Target, error) {
	if s.local {
		return env.Opener.OpenLocal(ctx, s.repo, store.ReadOnly)
	}
	return env.Opener.Open(ctx, s.repo, store.ReadOnly)
}

// listTags lists the tags of sources, each repository once however many
// times it is named, up to env's concurrency at once. The tags are by
// tagSource.key.
func listTags(ctx context.Context, env *Env, sources []tagSource) (map[string][]string, error) {
	var unique []tagSource
	seen := map[string]bool{}
	for _, src := range sources {
		if !seen[src.key()] {
			seen[src.key()] = true
			unique = append(unique, src)
		}
	}
	listed := make([][]string, len(unique))
	err := inorder.Concurrently(ctx, len(unique), listingConcurrency(env), func(ctx context.Context, i int) error {
		t, err := unique[i].open(ctx, env)
		if err != nil {
			return err
		}
		defer t.Close()
		listed[i], err = t.Tags(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	tags := make(map[string][]string, len(unique))
	for i, src := range unique {
		tags[src.key()] = listed[i]
	}
	return tags, nil
}
