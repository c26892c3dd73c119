package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
)

// TestBuildsSweepDeadScratch checks that building a package directory and
// its path dependencies leaves nothing in the temporary directory, and
// removes what a killed build left there: every scratch directory stax
// makes is locked while in use and swept by the next run.
func TestBuildsSweepDeadScratch(t *testing.T) {
	useHome(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, name := range []string{"build", "resolve"} {
		dir := filepath.Join(tmp, "stax-"+name+"-killed")
		filetest.WriteFile(t, filepath.Join(dir, ".stax-scratch.lock"), "")
		filetest.WriteFile(t, filepath.Join(dir, "blobs", "partial"), "half a layer")
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	filetest.WriteFile(t, filepath.Join(root, "base", "stax.yaml"), "name: base\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(root, "base", "skills"), map[string]string{"lint/SKILL.md": skillMD("lint", "Lint.")})
	filetest.WriteFile(t, filepath.Join(root, "team", "stax.yaml"), "name: team\nversion: 1.0.0\npackages:\n  - ../base\n")
	writeSkillFiles(t, filepath.Join(root, "team", "skills"), map[string]string{"review/SKILL.md": skillMD("review", "Review.")})

	if r := runStax(t, "inspect", filepath.Join(root, "team")); r.Code != 0 {
		t.Fatalf("inspect: %d %s", r.Code, r.Stderr)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in the temporary directory: %s", e.Name())
	}
}
