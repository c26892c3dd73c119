package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A local path that is not there is the file system's (exit 2), not a
// package that failed to resolve (4): the message names where it looked
// and what to give instead.
func TestAddOfAMissingPathIsLocal(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	missing := filepath.Join(proj, "missing")
	r := runStax(t, "add", missing, "--dir", proj)
	if r.Code != 2 || !strings.Contains(r.Stderr, missing) || !strings.Contains(r.Stderr, "name a directory") {
		t.Errorf("add of a missing path: exit %d, want 2, the path and the fix\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(proj, "stax.yaml")); !os.IsNotExist(err) {
		t.Errorf("add of a missing path wrote stax.yaml: %v", err)
	}
}
