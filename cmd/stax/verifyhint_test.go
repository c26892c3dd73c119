package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// In a project with no stax.yaml and no stax.lock, every skill came from
// an install --no-save: the note verify --installed gives is the install
// that works there (stax install alone fails: nothing to install), and
// running it with the package given restores the skills.
func TestVerifyInstalledHintWithoutALock(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	src := filepath.Join(t.TempDir(), "pkg")
	writeSkillFiles(t, src, map[string]string{"one/SKILL.md": skillMD("one", "v1"), "two/SKILL.md": skillMD("two", "v1")})
	if r := runStax(t, "install", "--no-save", src, "--dir", proj); r.Code != 0 {
		t.Fatalf("install --no-save: %d %s", r.Code, r.Stderr)
	}
	folder := filepath.Join(proj, ".claude", "skills")
	if err := os.RemoveAll(filepath.Join(folder, "one")); err != nil {
		t.Fatal(err)
	}
	filetest.WriteFile(t, filepath.Join(folder, "two", "SKILL.md"), "changed\n")
	r := runStax(t, "verify", "--installed", "--dir", proj)
	_, hint, _ := strings.Cut(r.Stderr, "`")
	hint, _, _ = strings.Cut(hint, "`")
	args := strings.Fields(hint)
	if r.Code != 6 || len(args) < 2 || args[0] != "stax" || !strings.Contains(hint, "--no-save REF") {
		t.Fatalf("verify --installed with no stax.lock: exit %d, want 6 and an install --no-save of the package\n%s", r.Code, r.Stderr)
	}
	for i, a := range args {
		if a == "REF" {
			args[i] = src
		}
	}
	if h := runStax(t, args[1:]...); h.Code != 0 {
		t.Fatalf("the hint %s: exit %d %s", hint, h.Code, h.Stderr)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 0 {
		t.Errorf("verify after the hint %s: exit %d\n%s%s", hint, r.Code, r.Stdout, r.Stderr)
	}
}
