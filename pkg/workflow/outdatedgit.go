package workflow

import (
	"context"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/gitpackage"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// gitOutdated is what an outdated entry of a git source compares: its
// reference, and the REF and commit stax.lock holds (nil when not locked).
type gitOutdated struct {
	ref    gitsource.Reference
	locked *gitsource.Resolved
}

// gitOutdatedEntry is the entry of the git source d, declared as dep,
// compared with what l locks of it.
func gitOutdatedEntry(dep *staxyaml.Dependency, d declaration.Declaration, l *lock.Lock) outdatedEntry {
	e := outdatedEntry{dep: dep, rng: d.Range, git: &gitOutdated{ref: d.Git}, OutdatedPackage: OutdatedPackage{Range: dep.Version}}
	repo := d.Git
	repo.Ref = ""
	e.Ref = repo.String()
	if p, ok := lockedSource(l, d.Package()); ok {
		e.git.locked = lockedGit(p)
	}
	return e
}

// gitDependencyEntry is the entry of the git source d that a package
// declares, locked as p: a dependency, as a registry package one is.
func gitDependencyEntry(d declaration.Declaration, p lock.Package) outdatedEntry {
	e := outdatedEntry{git: &gitOutdated{ref: d.Git, locked: lockedGit(p)}, OutdatedPackage: OutdatedPackage{Dependency: true}}
	repo := d.Git
	repo.Ref = ""
	e.Ref = repo.String()
	return e
}

// compareWithGitRepositories lists the tags and branches of each git
// repository the entries name, with one git ls-remote however many
// entries name it, and compares those entries with them. The repositories
// are asked at once, up to env's concurrency; the error reported is the
// one asking them in the order the entries first name them would.
func compareWithGitRepositories(ctx context.Context, env *Env, entries []outdatedEntry) error {
	var repos [][]int // the entries of each repository, by first appearance
	index := map[string]int{}
	for i := range entries {
		// Only the fields no job writes are read: compareWithRegistries
		// fills in the other entries meanwhile.
		g := entries[i].git
		if g == nil {
			continue
		}
		key := g.ref.SameRepository() // OWNER/REPO and OWNER/REPO.git listed once on github.com
		r, ok := index[key]
		if !ok {
			r = len(repos)
			index[key] = r
			repos = append(repos, nil)
		}
		repos[r] = append(repos[r], i)
	}
	if len(repos) == 0 {
		return nil
	}
	cache, err := env.gitCache()
	if err != nil {
		return err
	}
	return inorder.Concurrently(ctx, len(repos), listingConcurrency(env), func(ctx context.Context, r int) error {
		refs, err := cache.ListRefs(ctx, entries[repos[r][0]].git.ref)
		if err != nil {
			return err
		}
		for _, i := range repos[r] {
			entries[i].compareGit(refs)
		}
		return nil
	})
}

// compareGit fills in Locked, Wanted, Latest and Outdated from the
// repository's refs: a source is outdated when what it asks for (its
// REF, the highest tag in its range, else the highest release or the
// default branch) is another commit than the one locked — a newer tag,
// a branch that moved, a tag pushed over — or when a newer release is
// tagged. A REF the repository lacks wants nothing. A dependency is
// outdated only when a newer release is tagged.
func (e *outdatedEntry) compareGit(refs *gitsource.Refs) {
	if latest, ok := semver.Highest(refs.TagNames(), nil); ok {
		e.Latest = tagVersion(latest)
	}
	locked := e.git.locked
	if e.Dependency {
		// It wants what its package recorded, the commit locked, which
		// only a new release of that package changes (as a registry
		// dependency wants its locked version).
		if locked != nil {
			e.Locked = gitVersion(*locked)
			e.Wanted = e.Locked
		}
		e.Outdated = locked == nil || newer(e.Latest, e.Locked)
		return
	}
	want, err := refs.Resolve(e.git.ref.Ref, e.rng)
	if err == nil {
		e.Wanted = gitVersion(want)
	}
	if locked == nil {
		e.Outdated = true
		return
	}
	e.Locked = gitVersion(*locked)
	e.Moved = err == nil && want.Kind == gitsource.KindTag && want.Ref == locked.Ref && want.Commit != locked.Commit
	e.Outdated = (err == nil && want.Commit != locked.Commit) || newer(e.Latest, e.Locked)
}

// gitVersion is how outdated shows a resolved REF: a tag's version (or
// the tag), a branch with its short commit (main@1a2b3c4), a commit
// short.
func gitVersion(r gitsource.Resolved) string {
	switch r.Kind {
	case gitsource.KindTag:
		return tagVersion(r.Ref)
	case gitsource.KindBranch:
		return r.Ref + "@" + shortCommit(r.Commit)
	}
	return shortCommit(r.Commit)
}

// shortCommit is commit's first seven digits, as git shows it.
func shortCommit(commit string) string {
	return commit[:min(7, len(commit))]
}

// lockedGit is the REF and commit p locks of a git source; nil when it
// records none.
func lockedGit(p lock.Package) *gitsource.Resolved {
	if p.Git == nil {
		return nil
	}
	return &gitsource.Resolved{Ref: p.Git.Ref, Kind: gitsource.Kind(p.Git.Kind), Commit: p.Git.Commit}
}

// listGitTags lists the tags of the git repositories of refs, with one
// git ls-remote each however many times one is named, up to env's
// concurrency at once, as outdated lists them. The tags are by
// repository (Reference.SameRepository).
func listGitTags(ctx context.Context, env *Env, refs []gitsource.Reference) (map[string][]string, error) {
	var unique []gitsource.Reference
	seen := map[string]bool{}
	for _, r := range refs {
		if !seen[r.SameRepository()] {
			seen[r.SameRepository()] = true
			unique = append(unique, r)
		}
	}
	tags := make(map[string][]string, len(unique))
	if len(unique) == 0 {
		return tags, nil
	}
	cache, err := env.gitCache()
	if err != nil {
		return nil, err
	}
	listed := make([][]string, len(unique))
	err = inorder.Concurrently(ctx, len(unique), listingConcurrency(env), func(ctx context.Context, i int) error {
		refs, err := cache.ListRefs(ctx, unique[i])
		if err != nil {
			return err
		}
		listed[i] = refs.TagNames()
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, r := range unique {
		tags[r.SameRepository()] = listed[i]
	}
	return tags, nil
}

// lockedCommits are the commits old locks of the git sources pinned
// keeps (lockedPins: those not named, whose declaration is unchanged), for
// resolve.GitOptions.Locked: a git source stays at its locked commit
// until it is updated, as a registry source stays at its digest.
func lockedCommits(old *lock.Lock, pinned map[string]digest.Digest) map[string]gitpackage.Locked {
	out := map[string]gitpackage.Locked{}
	for ref, l := range old.GitLocked() {
		if _, ok := pinned[ref]; ok {
			out[ref] = l
		}
	}
	return out
}
