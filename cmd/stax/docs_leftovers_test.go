package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/stax-dev/stax/internal/filetest"
)

// plantDocsStaging leaves beside the pages' directory what a killed stax
// docs leaves there: its staging directory, named as os.MkdirTemp names
// it, holding some of the pages, and aged as a run killed a while ago.
// With lock set, it also holds the lock file of a run's scratch directory.
func plantDocsStaging(t *testing.T, parent, number string, lock bool) string {
	t.Helper()
	dir := filepath.Join(parent, ".stax-docs-"+number)
	filetest.WriteFile(t, filepath.Join(dir, "stax.md"), "half a page\n")
	if lock {
		filetest.WriteFile(t, filepath.Join(dir, ".stax-scratch.lock"), "")
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A killed stax docs leaves its staging directory beside DIR, with or
// without the lock file of a scratch directory; the next run into that
// folder removes it. A live run's (its lock held) stays.
func TestDocsRemovesKilledRunsStaging(t *testing.T) {
	t.Parallel()
	useHome(t)
	parent := t.TempDir()
	dead := plantDocsStaging(t, parent, "1234567", false)
	deadLocked := plantDocsStaging(t, parent, "2345678", true)
	live := plantDocsStaging(t, parent, "7654321", true)
	held := flock.New(filepath.Join(live, ".stax-scratch.lock"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()

	if r := runStax(t, "docs", "markdown", filepath.Join(parent, "cli")); r.Code != 0 {
		t.Fatalf("docs markdown: exit %d: %s", r.Code, r.Stderr)
	}
	for _, dir := range []string{dead, deadLocked} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("a killed run's staging %s is still there (%v)", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(live, "stax.md")); err != nil {
		t.Errorf("a live run's staging lost its pages: %v", err)
	}
	var names []string
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{".stax-docs-7654321", "cli"}; !slices.Equal(names, want) {
		t.Errorf("beside the pages: %v; want %v", names, want)
	}
}
