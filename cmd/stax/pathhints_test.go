package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// A local path that is not there, a package directory or an oci: layout,
// is the file system's (exit 2), not a package that failed to resolve (4):
// the message names where it looked and what to give instead.
func TestAddOfAMissingPathIsLocal(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	missing := filepath.Join(proj, "missing")
	for _, tt := range []struct{ source, fix string }{
		{missing, "name a directory"},
		{"oci:" + missing + ":1.0.0", "name the directory of an OCI layout"},
	} {
		r := runStax(t, "add", tt.source, "--dir", proj)
		if r.Code != 2 || !strings.Contains(r.Stderr, missing) || !strings.Contains(r.Stderr, tt.fix) {
			t.Errorf("add %s: exit %d, want 2, the path and the fix\n%s", tt.source, r.Code, r.Stderr)
		}
		if _, err := os.Stat(filepath.Join(proj, "stax.yaml")); !os.IsNotExist(err) {
			t.Errorf("add %s wrote stax.yaml: %v", tt.source, err)
		}
	}
}

// pull -o into a folder that holds files refuses it with the way out,
// and the way out works.
func TestPullIntoAFullFolderSaysWhatToDo(t *testing.T) {
	t.Parallel()
	useHome(t)
	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	writeSkillFiles(t, pkg, map[string]string{"one/SKILL.md": skillMD("one", "v1")})
	full := filepath.Join(root, "full")
	filetest.WriteFile(t, filepath.Join(full, "mine.md"), "mine")
	r := runStax(t, "pull", pkg, "-o", full)
	if r.Code != 5 || !strings.Contains(r.Stderr, full) || !strings.Contains(r.Stderr, "pass -o a new or empty directory") {
		t.Fatalf("pull -o into a full folder: exit %d, want 5 and the fix\n%s", r.Code, r.Stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(full, "mine.md")); string(got) != "mine" {
		t.Errorf("the user's file is %q", got)
	}
	if r := runStax(t, "pull", pkg, "-o", filepath.Join(root, "new")); r.Code != 0 {
		t.Errorf("pull -o into a new folder, as the message says: exit %d %s", r.Code, r.Stderr)
	}
}
