package main

import (
	"encoding/json"
	"os"
	"os/exec"
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
	j := runStax(t, "verify", "--installed", "--dir", proj, "--output", "json")
	var res struct {
		NoLock *bool `json:"noLock"`
	}
	if err := json.Unmarshal([]byte(j.Stdout), &res); err != nil || res.NoLock == nil || !*res.NoLock {
		t.Errorf("verify --installed --output json with no stax.lock: %v, want noLock true\n%s", err, j.Stdout)
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

// shellWords is line as a POSIX shell splits it into arguments, quotes
// removed: what a user who pastes a hint runs.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `printf '%s\0' `+line).Output()
	if err != nil {
		t.Fatalf("sh cannot read %s: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// A hint that names the project's folder with --dir quotes it as a shell
// reads it back: pasted, the note of verify --installed and the warning
// of an install into two runtimes that read one folder run in that
// folder, where a path with a space or a quote ran in another, or not
// at all.
func TestHintsQuoteTheDirForTheShell(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := filepath.Join(t.TempDir(), "it's my project")
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"one/SKILL.md": skillMD("one", "v1")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	r := runStax(t, "install", "--dir", proj, "--runtime", "claude-code,cursor")
	_, warned, _ := strings.Cut(r.Stderr, "(`")
	warned, _, _ = strings.Cut(warned, "`)")
	if args := shellWords(t, warned); r.Code != 0 || len(args) < 2 || args[len(args)-2] != "--dir" || args[len(args)-1] != proj {
		t.Errorf("install into two runtimes that read one folder: exit %d, the uninstall it gives reads as %q, want it to end in --dir %s\n%s", r.Code, args, proj, r.Stderr)
	}

	if err := os.RemoveAll(filepath.Join(proj, ".claude", "skills", "one")); err != nil {
		t.Fatal(err)
	}
	r = runStax(t, "verify", "--installed", "--dir", proj, "--runtime", "claude-code")
	_, hint, _ := strings.Cut(r.Stderr, "`")
	hint, _, _ = strings.Cut(hint, "`")
	args := shellWords(t, hint)
	if r.Code != 6 || len(args) < 2 || args[0] != "stax" {
		t.Fatalf("verify --installed: exit %d, want 6 and an install\n%s", r.Code, r.Stderr)
	}
	if h := runStax(t, args[1:]...); h.Code != 0 {
		t.Fatalf("the hint %s, as a shell reads it (%q): exit %d %s", hint, args, h.Code, h.Stderr)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Errorf("verify after the hint %s: exit %d\n%s%s", hint, r.Code, r.Stdout, r.Stderr)
	}
}

// The pack init gives for a new package reads back as the folder given.
func TestInitHintQuotesTheDirForTheShell(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := filepath.Join(t.TempDir(), "team's skills")
	r := runStax(t, "init", dir, "--package", "--name", "team-skills", "--version", "1.0.0")
	_, hint, _ := strings.Cut(r.Stderr, "`")
	hint, _, _ = strings.Cut(hint, "`")
	if args := shellWords(t, hint); r.Code != 0 || len(args) != 3 || args[2] != dir {
		t.Errorf("init: exit %d, the pack it gives reads as %q, want stax pack %s\n%s", r.Code, args, dir, r.Stderr)
	}
}
