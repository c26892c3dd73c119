package gitsource

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
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
