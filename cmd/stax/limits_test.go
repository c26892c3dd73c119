package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// --max-files bounds the entries of a skills layer, checked while reading
// and before anything appears at the destination; 0 lifts it.
func TestMaxFiles(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	pushExamples(t, ref)
	out := filepath.Join(t.TempDir(), "out")
	r := runStax(t, "pull", ref, "-o", out, "--max-files", "3")
	if r.Code != 5 || !strings.Contains(r.Stderr, "--max-files") {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a refused layer left output")
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) > 0 {
		t.Errorf("left beside the output: %v", entries)
	}
	if r := runStax(t, "pull", ref, "-o", out, "--max-files", "0"); r.Code != 0 {
		t.Fatalf("--max-files 0: %d %s", r.Code, r.Stderr)
	}

	h := newHostileProject(t)
	before := treeState(t, h.skills)
	r = runStax(t, "install", ref, "--dir", h.project, "--max-files", "3")
	if r.Code != 5 || !strings.Contains(r.Stderr, "--max-files") {
		t.Fatalf("install: exit %d: %s", r.Code, r.Stderr)
	}
	if got := treeState(t, h.skills); len(got) != len(before) {
		t.Errorf("a refused install changed the folder: %v", got)
	}
}

// pack of a project whose stax.yaml names a missing skills directory
// fails as validate does (exit 2); a package with neither skills nor
// dependencies is the no-skills warning, an error under --strict.
func TestPackMissingOrEmptySkills(t *testing.T) {
	t.Parallel()
	useHome(t)
	named := t.TempDir()
	filetest.WriteFile(t, filepath.Join(named, "stax.yaml"), "name: x\nversion: 1.0.0\nskills: nothere\n")
	if r := runStax(t, "pack", named); r.Code != 2 || !strings.Contains(r.Stderr, "nothere") {
		t.Errorf("named skills directory missing: exit %d %s", r.Code, r.Stderr)
	}
	empty := t.TempDir()
	filetest.WriteFile(t, filepath.Join(empty, "stax.yaml"), "name: x\nversion: 1.0.0\n")
	if r := runStax(t, "pack", empty); r.Code != 0 || !strings.Contains(r.Stderr, "no-skills") {
		t.Errorf("empty package: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "pack", empty, "--strict"); r.Code != 1 || !strings.Contains(r.Stderr, "no-skills") {
		t.Errorf("empty package, --strict: exit %d %s", r.Code, r.Stderr)
	}
}

// Skills whose names differ only in case: a warning from validate and
// pull, an error under validate --strict and pull --strict (exit 5, and
// nothing written).
func TestCaseCollidingSkills(t *testing.T) {
	t.Parallel()
	useHome(t)
	src := t.TempDir()
	filetest.WriteFile(t, filepath.Join(src, "stax.yaml"), "name: x\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(src, "skills"), map[string]string{
		"pdf/SKILL.md": skillMD("pdf", "Lower."),
		"PDF/SKILL.md": skillMD("pdf-upper", "Upper."),
	})
	if _, err := os.Stat(filepath.Join(src, "skills", "Pdf")); err == nil {
		t.Skip("case-insensitive file system")
	}
	if r := runStax(t, "validate", src); r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, "case-collision") {
		t.Errorf("validate: exit %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "validate", src, "--strict"); r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, "case-collision") {
		t.Errorf("validate --strict: exit %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	if r := runStax(t, "pull", src, "-o", out); r.Code != 0 || !strings.Contains(r.Stderr, "differ only in letter case") {
		t.Errorf("pull: exit %d %s", r.Code, r.Stderr)
	}
	strictOut := filepath.Join(t.TempDir(), "strict")
	r := runStax(t, "pull", src, "-o", strictOut, "--strict")
	if r.Code != 5 || !strings.Contains(r.Stderr, "skills PDF and pdf differ only in letter case") || !strings.Contains(r.Stderr, "--strict") {
		t.Errorf("pull --strict: exit %d %s; want 5 naming both skills", r.Code, r.Stderr)
	}
	if _, err := os.Stat(strictOut); !os.IsNotExist(err) {
		t.Errorf("pull --strict refused, yet %s exists (%v)", strictOut, err)
	}
}
