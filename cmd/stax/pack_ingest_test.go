package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// pack writes the layer straight into the store (or layout) it packs
// into: no temporary copy, so a $TMPDIR that cannot be written does not
// matter, and the store's ingest directory is left empty.
func TestPackWritesNoTemporaryCopy(t *testing.T) {
	home := useHome(t)
	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: direct\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(pkg, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "Direct.")})
	t.Setenv("TMPDIR", filepath.Join(root, "no-such-dir"))
	for _, dest := range []string{"", "oci:" + filepath.Join(root, "layout") + ":1.0.0"} {
		args := []string{"pack", pkg}
		if dest != "" {
			args = append(args, "-t", dest)
		}
		if r := runStax(t, args...); r.Code != 0 {
			t.Fatalf("pack %v: exit %d: %s", args[2:], r.Code, r.Stderr)
		}
	}
	for _, ingest := range []string{filepath.Join(home, "store", "ingest"), filepath.Join(root, "layout", "ingest")} {
		entries, _ := os.ReadDir(ingest)
		for _, e := range entries {
			t.Errorf("left in %s: %s", ingest, e.Name())
		}
	}
	// The layer in place is the one the manifest names: it installs.
	project := filepath.Join(root, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "install", "oci:"+filepath.Join(root, "layout")+":1.0.0", "--dir", project); r.Code != 0 {
		t.Fatalf("install: exit %d: %s", r.Code, r.Stderr)
	}
}
