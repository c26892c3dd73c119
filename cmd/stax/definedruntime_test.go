package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// TestInstallIntoADefinedRuntime pins that a runtime stax.yaml defines by
// its folders is installed into and listed like one stax knows, and that
// a definition leading outside the project is refused (exit 1) with the
// file and line.
func TestInstallIntoADefinedRuntime(t *testing.T) {
	t.Parallel()
	setenv(t, "STAX_HOME", t.TempDir())
	proj := t.TempDir()
	filetest.Write(t, proj, map[string]string{
		"stax.yaml":              "name: team\nversion: 1.0.0\ninstall:\n  sources: [.]\n  runtimes:\n    - name: zed-agent\n      project: .zed/skills\n      user: .config/zed/skills\n",
		"skills/review/SKILL.md": "---\nname: review\ndescription: Reviews changes. Use when testing defined runtimes.\n---\nReview.\n",
	})
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(proj, ".zed", "skills", "review", "SKILL.md")); err != nil {
		t.Errorf("not installed into the defined folder: %v", err)
	}
	if r := runStax(t, "list", "--dir", proj, "--runtime", "zed-agent"); r.Code != 0 || !strings.Contains(r.Stdout, "review") {
		t.Errorf("list --runtime zed-agent: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}

	bad := t.TempDir()
	filetest.Write(t, bad, map[string]string{
		"stax.yaml":              "name: team\nversion: 1.0.0\ninstall:\n  sources: [.]\n  runtimes:\n    - {name: zed-agent, project: ../elsewhere, user: .zed/skills}\n",
		"skills/review/SKILL.md": "---\nname: review\ndescription: Reviews changes. Use when testing defined runtimes.\n---\nReview.\n",
	})
	r := runStax(t, "install", "--dir", bad)
	if r.Code != 1 || !strings.Contains(r.Stderr, "stax.yaml") || !strings.Contains(r.Stderr, "line 6") || !strings.Contains(r.Stderr, "path traversal") {
		t.Errorf("install with a folder outside the project: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(bad), "elsewhere")); !os.IsNotExist(err) {
		t.Errorf("wrote outside the project: %v", err)
	}
}
