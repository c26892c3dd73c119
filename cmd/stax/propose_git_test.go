package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filelock"
	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/pkg/workflow"
)

// serveExamples serves the example package from a git server, on its
// default branch, tagged v1.0.0.
func serveExamples(t *testing.T) *gittest.Repo {
	t.Helper()
	gittest.RequireGit(t)
	return examplesRepo(t, gittest.NewServer(t), "examples")
}

// examplesRepo is the repository name of srv holding the example
// package, on its default branch, tagged v1.0.0.
func examplesRepo(t *testing.T, srv *gittest.Server, name string) *gittest.Repo {
	t.Helper()
	repo := srv.NewRepo(t, name)
	repo.WriteDir(copyExamples(t))
	repo.Commit("examples")
	repo.Tag("v1.0.0", "")
	return repo
}

// installExamplesFromGit installs src, the example package served by a
// git server, into a new project for claude-code and returns the project
// and the installed stateful skill.
func installExamplesFromGit(t *testing.T, src string) (proj, skillDir string) {
	t.Helper()
	proj = t.TempDir()
	if r := runStax(t, "install", src, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	return proj, filepath.Join(proj, ".claude", "skills", "incident-postmortem")
}

// proposedEntries runs stax propose of incident-postmortem in proj and
// returns the signers of the new MEMORY.md entries it lists, and what it
// skipped.
func proposedEntries(t *testing.T, proj string) (signers, skipped []string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "proposal.json")
	r := runStax(t, "propose", "incident-postmortem", "--dir", proj, "--runtime", "claude-code", "-o", out, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("propose: %d %s", r.Code, r.Stderr)
	}
	var res struct {
		Entries []struct {
			Signer string `json:"signer"`
		} `json:"entries"`
		Skipped []string `json:"skipped"`
	}
	decodeJSON(t, r.Stdout, &res)
	for _, e := range res.Entries {
		signers = append(signers, e.Signer)
	}
	return signers, res.Skipped
}

// A skill installed from a git repository is proposed as one installed
// from a registry: its package, kept in the local store at the digest
// the install recorded, tells which MEMORY.md entries are new.
func TestProposeFromAGitSourceListsNewEntries(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj, skillDir := installExamplesFromGit(t, "git+"+serveExamples(t).URL+"#v1.0.0")
	addMemoryEntry(t, skillDir, learned)
	signers, skipped := proposedEntries(t, proj)
	if !slices.Equal(signers, []string{"@ana"}) {
		t.Errorf("propose lists the new entries of %v, want @ana's; skipped: %s", signers, strings.Join(skipped, "; "))
	}
}

// A git source's package no longer in the local store (pruned, or
// installed by a stax that did not keep it) loses only the list of new
// entries, and propose says what keeps it again: install --frozen, which
// builds it at the locked commit and stores it. After that, propose lists
// the entry.
func TestProposeFromAGitSourceNotInTheStore(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	proj, skillDir := installExamplesFromGit(t, "git+"+serveExamples(t).URL+"#v1.0.0")
	addMemoryEntry(t, skillDir, learned)
	if err := os.RemoveAll(filepath.Join(home, "store")); err != nil {
		t.Fatal(err)
	}
	signers, skipped := proposedEntries(t, proj)
	if len(signers) != 0 || !strings.Contains(strings.Join(skipped, "; "), "run stax install --frozen") {
		t.Errorf("propose of a package not in the store lists %v and skips %q; want no entries and a note naming stax install --frozen", signers, skipped)
	}
	if r := runStax(t, "install", "--frozen", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install --frozen: %d %s", r.Code, r.Stderr)
	}
	if signers, skipped := proposedEntries(t, proj); !slices.Equal(signers, []string{"@ana"}) {
		t.Errorf("after install --frozen, propose lists the new entries of %v, want @ana's; skipped: %s", signers, strings.Join(skipped, "; "))
	}
}

// stax store prune treats a package built from a git source as a
// registry's: its key (the git reference at its branch) keeps the
// package of the branch's newest commit; one the branch moved from is
// kept while a project's stax.lock pins it, and propose there still lists
// new entries after a prune; once that project is gone, prune removes it.
func TestStorePruneKeepsGitPackagesAStaxLockPins(t *testing.T) {
	t.Parallel()
	useHome(t)
	repo := serveExamples(t)
	src := "git+" + repo.URL + "#main"
	old, skillDir := installExamplesFromGit(t, src)
	addMemoryEntry(t, skillDir, learned)
	yaml := readText(t, filepath.Join(examples, "stax.yaml"))
	repo.Write(map[string]string{"stax.yaml": strings.Replace(yaml, "description: Example", "description: Newer example", 1)})
	repo.Commit("newer")
	current, _ := installExamplesFromGit(t, src)
	oldDigest, currentDigest := readLockFile(t, old).Packages[0].Digest, readLockFile(t, current).Packages[0].Digest
	if oldDigest == currentDigest {
		t.Fatalf("both commits of main built %s", oldDigest)
	}

	// A deadline that fails only on a hang: a store another command of
	// this process left open, as propose did, holds its lock until the
	// runtime's periodic GC closes the file, two minutes on.
	prune := func() workflow.PruneResult {
		t.Helper()
		r := runStaxWithin(t, 30*time.Second, "store", "prune", "--output", "json")
		if r.Code != 0 {
			t.Fatalf("store prune: %d %s", r.Code, r.Stderr)
		}
		var res workflow.PruneResult
		decodeJSON(t, r.Stdout, &res)
		return res
	}
	if res := prune(); len(res.Manifests) != 0 {
		t.Errorf("prune removed %v, which a tag or %s/stax.lock keeps", res.Manifests, old)
	}
	if signers, skipped := proposedEntries(t, old); !slices.Equal(signers, []string{"@ana"}) {
		t.Errorf("after a prune, propose lists the new entries of %v, want @ana's; skipped: %s", signers, strings.Join(skipped, "; "))
	}
	if err := os.RemoveAll(old); err != nil {
		t.Fatal(err)
	}
	if res := prune(); !slices.Equal(res.Manifests, []digest.Digest{oldDigest}) {
		t.Errorf("prune removed %v; want %s, which only a removed project pinned, and not %s, which the store's key keeps", res.Manifests, oldDigest, currentDigest)
	}
}

// stax store prune removes from the git cache the repositories no
// registered project's stax.lock takes a git source from, but one another
// stax holds; the project that still installs from its repository keeps
// it, and installs --frozen from the cache alone.
func TestStorePruneRemovesGitRepositoriesNoLockNames(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	gittest.RequireGit(t)
	srv := gittest.NewServer(t)
	kept, gone := examplesRepo(t, srv, "kept"), examplesRepo(t, srv, "gone")
	proj, _ := installExamplesFromGit(t, "git+"+kept.URL+"#v1.0.0")
	removed, _ := installExamplesFromGit(t, "git+"+gone.URL+"#v1.0.0")
	if err := os.RemoveAll(removed); err != nil {
		t.Fatal(err)
	}
	repos := func() []string {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(home, "git", "*.git"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := repos()
	if len(before) != 2 {
		t.Fatalf("the git cache holds %v, want two repositories", before)
	}

	// Another stax using the repository: prune leaves it.
	unlock, err := filelock.Lock(context.Background(), filepath.Join(home, "locks"), filelock.Named("git", gone.URL), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	var res workflow.PruneResult
	r := runStax(t, "store", "prune", "--output", "json")
	unlock()
	decodeJSON(t, r.Stdout, &res)
	if res.GitCache.Repositories != 0 || len(repos()) != 2 {
		t.Errorf("prune removed %d repositories of the git cache, one in use; the cache holds %v", res.GitCache.Repositories, repos())
	}

	decodeJSON(t, runStax(t, "store", "prune", "--dry-run", "--output", "json").Stdout, &res)
	if res.GitCache.Repositories != 1 || res.GitCache.Bytes == 0 || len(repos()) != 2 {
		t.Errorf("a dry run would remove %+v of the git cache, and left %v; want one repository, and both left", res.GitCache, repos())
	}
	r = runStax(t, "store", "prune")
	if left := repos(); len(left) != 1 || !strings.Contains(r.Stdout, "git cache: removed 1 repository no stax.lock takes a git source from") {
		t.Errorf("prune left %v in the git cache and said:\n%s", left, r.Stdout)
	}
	srv.Reset()
	if r := runStax(t, "install", "--frozen", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install --frozen: %d %s", r.Code, r.Stderr)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("install --frozen after a prune asked the git server %d times; its repository should have been kept", n)
	}
}
