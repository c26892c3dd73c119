package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPushRefusesPlaceholders pins the command: a package whose skill is
// as stax new skill wrote it is refused (exit 1, naming file:line and the
// flag) and nothing is pushed; --allow-placeholders pushes it.
func TestPushRefusesPlaceholders(t *testing.T) {
	t.Parallel()
	setenv(t, "STAX_HOME", t.TempDir())
	dir := t.TempDir()
	if r := runStax(t, "init", dir, "--name", "team", "--version", "1.0.0"); r.Code != 0 {
		t.Fatalf("init: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "new", "skill", "draft", filepath.Join(dir, "skills")); r.Code != 0 {
		t.Fatalf("new skill: %d %s", r.Code, r.Stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	r := runStax(t, "push", dir, "oci:"+out+":1.0.0")
	if r.Code != 1 || !strings.Contains(r.Stderr, filepath.Join("draft", "SKILL.md")+":4") || !strings.Contains(r.Stderr, "--allow-placeholders") {
		t.Errorf("push of placeholders: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused push wrote %s: %v", out, err)
	}
	if r := runStax(t, "push", dir, "oci:"+out+":1.0.0", "--allow-placeholders"); r.Code != 0 {
		t.Errorf("push --allow-placeholders: %d %s", r.Code, r.Stderr)
	}
}
