package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
)

// plantDeadScratch leaves in $TMPDIR what a killed run leaves: a scratch
// directory with a lock file no one holds.
func plantDeadScratch(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "stax-"+name+"-dead")
	filetest.WriteFile(t, filepath.Join(dir, ".stax-scratch.lock"), "")
	filetest.WriteFile(t, filepath.Join(dir, "skills", "big", "SKILL.md"), strings.Repeat("x", 1<<20))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An install removes what killed installs and packs left in $TMPDIR and
// in the skills folder, and leaves nothing of its own.
func TestInstallLeavesNothingBehind(t *testing.T) {
	useHome(t)
	t.Setenv("TMPDIR", t.TempDir())
	h := newHostileProject(t)
	dead := []string{plantDeadScratch(t, "install"), plantDeadScratch(t, "layer")}
	staging := filepath.Join(h.skills, ".stax-staging-20260101T000000Z-dead")
	filetest.WriteFile(t, filepath.Join(staging, "x", "SKILL.md"), "half\n")

	if r := runStax(t, "install", h.source, "--dir", h.project); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	for _, d := range append(dead, staging) {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("a killed run's %s is still there", d)
		}
	}
	entries, _ := os.ReadDir(os.TempDir())
	for _, e := range entries {
		t.Errorf("left in $TMPDIR: %s", e.Name())
	}
	entries, _ = os.ReadDir(h.skills)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".stax-") && e.Name() != ".stax-install.json" {
			t.Errorf("left in the skills folder: %s", e.Name())
		}
	}
}
