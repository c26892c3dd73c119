package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// TestInstallGitKeepsLockedCommit: a plain install keeps each git source
// at the commit stax.lock holds while its declaration is unchanged, as it
// keeps a registry source at its locked digest, asking the server nothing
// when the commit is cached: a branch that moved, a new tag and a new tag
// in range are taken only by naming the source, by a changed declaration,
// or by stax update.
func TestInstallGitKeepsLockedCommit(t *testing.T) {
	t.Parallel()
	useHome(t)
	srv, repo, _ := serveAnthropics(t)
	proj := t.TempDir()
	branch, latest, ranged := "git+"+repo.URL+"//skills/pdf#main", "git+"+repo.URL+"//skills/docx", "git+"+repo.URL+"//skills/xlsx"
	filetest.Write(t, proj, map[string]string{"stax.yaml": "install:\n  runtimes: [claude-code]\n  sources:\n" +
		"    - " + branch + "\n    - " + latest + "\n    - ref: " + ranged + "\n      version: ^1.0.0\n"})
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	locked := readFile(t, filepath.Join(proj, "stax.lock"))

	repo.Write(map[string]string{"skills/pdf/moved.md": "1.1", "skills/docx/moved.md": "1.1", "skills/xlsx/moved.md": "1.1"})
	repo.Commit("1.1")
	repo.Tag("v1.1.0", "")
	moved := func(skill string) bool {
		_, err := os.Stat(filepath.Join(proj, ".claude", "skills", skill, "moved.md"))
		return err == nil
	}
	for _, args := range [][]string{{"install"}, {"install", "--frozen"}} {
		srv.Reset()
		if r := runStax(t, append(args, "--dir", proj)...); r.Code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.Code, r.Stderr)
		}
		if n := srv.Requests(); n != 0 {
			t.Errorf("%v of locked, cached commits made %d requests", args, n)
		}
		if got := readFile(t, filepath.Join(proj, "stax.lock")); got != locked {
			t.Errorf("%v changed stax.lock:\n%s\nwas:\n%s", args, got, locked)
		}
		if moved("pdf") || moved("docx") || moved("xlsx") {
			t.Errorf("%v followed the moved branch or a new tag", args)
		}
	}

	// A changed declaration (skills chosen) and a source named resolve
	// again; the others stay.
	yaml := strings.Replace(readFile(t, filepath.Join(proj, "stax.yaml")), "    - "+latest+"\n", "    - ref: "+latest+"\n      skills: [docx]\n", 1)
	filetest.Write(t, proj, map[string]string{"stax.yaml": yaml})
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install of a changed declaration: exit %d\n%s", r.Code, r.Stderr)
	}
	if !moved("docx") || moved("pdf") || moved("xlsx") {
		t.Errorf("a changed declaration: docx %v, pdf %v, xlsx %v; want only docx moved", moved("docx"), moved("pdf"), moved("xlsx"))
	}
	if r := runStax(t, "install", branch, "--dir", proj); r.Code != 0 {
		t.Fatalf("install %s: exit %d\n%s", branch, r.Code, r.Stderr)
	}
	if !moved("pdf") || moved("xlsx") {
		t.Errorf("the source named: pdf %v, xlsx %v; want pdf moved", moved("pdf"), moved("xlsx"))
	}
	if r := runStax(t, "update", "--dir", proj); r.Code != 0 {
		t.Fatalf("update: exit %d\n%s", r.Code, r.Stderr)
	}
	if !moved("xlsx") {
		t.Error("stax update kept the source in range at v1.0.0")
	}
}
