package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// TestUserNamedFilesOverTheirLimit: a stax.yaml is decoded into memory
// many times its size (60 MB took 866 MiB), so one over its limit is
// refused before it is read past it, naming the file and the limit; so is
// a --token-file that holds more than a token.
func TestUserNamedFilesOverTheirLimit(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	padding := "# " + strings.Repeat("x", 4<<20) + "\n"
	filetest.Write(t, proj, map[string]string{
		"stax.yaml":              "name: team\nversion: 1.0.0\ninstall:\n  sources: [.]\n" + padding,
		"skills/review/SKILL.md": "---\nname: review\ndescription: Reviews changes. Use when testing limits.\n---\nReview.\n",
		"token":                  strings.Repeat("t", 8<<10+1),
	})
	r := runStax(t, "install", "--dir", proj)
	if want := filepath.Join(proj, "stax.yaml") + " is too large: it holds more than 4.0 MiB, the limit"; r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("install with a stax.yaml over 4 MiB: exit %d, want 1 saying %q:\n%s", r.Code, want, r.Stderr)
	}
	r = runStax(t, "mcp", "--http", "127.0.0.1:0", "--token-file", filepath.Join(proj, "token"))
	if r.Code != 1 || !strings.Contains(r.Stderr, "--token-file: "+filepath.Join(proj, "token")+" is too large") {
		t.Errorf("a --token-file over 8 KiB: exit %d, want 1 naming it:\n%s", r.Code, r.Stderr)
	}
}
