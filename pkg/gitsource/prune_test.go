package gitsource

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// Prune removes the repositories not kept, and what a prune killed while
// it removed one left; it leaves the repositories kept and what is not
// the cache's.
func TestCachePrune(t *testing.T) {
	c := NewCache(t.TempDir())
	keptURL, goneURL := "https://git.example.com/kept.git", "https://git.example.com/gone.git"
	for _, name := range []string{repoKey(keptURL) + ".git/objects", repoKey(goneURL) + ".git/objects", prunedPrefix + "0123/objects", "not-a-repository"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(c.Dir, repoKey(goneURL)+".git", "objects", "pack"), make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	dry, err := c.Prune(context.Background(), []string{keptURL}, true)
	if err != nil || dry != (CachePruned{Repositories: 1, Bytes: 100}) {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	pruned, err := c.Prune(context.Background(), []string{keptURL}, false)
	if err != nil || pruned != dry {
		t.Fatalf("prune: %+v, %v; the dry run said %+v", pruned, err, dry)
	}
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{repoKey(keptURL) + ".git", "not-a-repository"}; !slices.Equal(left, want) {
		t.Errorf("the cache holds %v after a prune, want %v", left, want)
	}
}

// A repository another stax holds is left by a prune, and a dry run says
// so too: it counts what a prune would remove, not what the cache holds.
func TestCachePruneLeavesARepositoryInUse(t *testing.T) {
	c := NewCache(t.TempDir())
	ref, err := Parse("git+https://git.example.com/used.git")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(c.repoDir(ref), "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := c.lock(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, dryRun := range []bool{true, false} {
		if pruned, err := c.Prune(context.Background(), nil, dryRun); err != nil || pruned.Repositories != 0 {
			t.Errorf("prune (dry run %v) of a repository in use: %+v, %v; want it left", dryRun, pruned, err)
		}
	}
	unlock()
	if _, err := os.Stat(c.repoDir(ref)); err != nil {
		t.Errorf("the repository in use is gone: %v", err)
	}
	if pruned, err := c.Prune(context.Background(), nil, true); err != nil || pruned.Repositories != 1 {
		t.Errorf("dry run once it is free: %+v, %v; want one repository", pruned, err)
	}
}

// A lock a prune cannot take for want of its directory is an error, not
// a repository in use: the prune said it removed nothing, and why not
// was lost.
func TestCachePruneReportsALockItCannotTake(t *testing.T) {
	c := NewCache(t.TempDir())
	if err := os.MkdirAll(filepath.Join(c.Dir, repoKey("https://git.example.com/gone.git")+".git", "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(c.LockDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.LockDir, nil, 0o644); err != nil { // in the way of the lock directory
		t.Fatal(err)
	}
	for _, dryRun := range []bool{true, false} {
		pruned, err := c.Prune(context.Background(), nil, dryRun)
		if err == nil || errdefs.Of(err) != errdefs.Local {
			t.Errorf("prune (dry run %v) with no lock directory: %+v, %v; want a local file system error", dryRun, pruned, err)
		}
	}
}

// Two prunes at once remove each repository once between them, and count
// it and its size once: each measures a repository under its lock, and
// one the other removed while it waited is not there to count, not a
// failure to move it aside.
func TestCachePrunesAtOnceCountEachRepositoryOnce(t *testing.T) {
	c := NewCache(t.TempDir())
	const n, size = 200, 100
	for i := range n {
		dir := filepath.Join(c.Dir, repoKey(fmt.Sprintf("https://git.example.com/r%d.git", i))+".git", "objects")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "pack"), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var (
		wg     sync.WaitGroup
		pruned [2]CachePruned
		errs   [2]error
	)
	for i := range pruned {
		wg.Go(func() { pruned[i], errs[i] = c.Prune(context.Background(), nil, false) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("prune %d: %v", i, err)
		}
	}
	if got := pruned[0].Repositories + pruned[1].Repositories; got != n {
		t.Errorf("the prunes removed %d repositories between them (%+v), want %d", got, pruned, n)
	}
	if got := pruned[0].Bytes + pruned[1].Bytes; got != n*size {
		t.Errorf("the prunes counted %d bytes between them (%+v), want %d", got, pruned, n*size)
	}
}
