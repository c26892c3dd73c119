package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

func TestNewSkill(t *testing.T) {
	t.Parallel()
	setenv(t, "SOURCE_DATE_EPOCH", "1795395600") // 2026-11-23
	dir := filepath.Join(t.TempDir(), "skills")
	r := runStax(t, "new", "skill", "review-pr", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "created "+filepath.Join(dir, "review-pr")+": SKILL.md\n") {
		t.Fatalf("new skill: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	r = runStax(t, "new", "skill", "incident-log", dir, "--stateful", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("new skill --stateful: %d %s", r.Code, r.Stderr)
	}
	var res struct{ Files []string }
	decodeJSON(t, r.Stdout, &res)
	if strings.Join(res.Files, ",") != "SKILL.md,CALIBRATION.md,EXAMPLES.md,MEMORY.md" {
		t.Errorf("files %v", res.Files)
	}
	if mem := readText(t, filepath.Join(dir, "incident-log", "MEMORY.md")); !strings.Contains(mem, "version: 0.1.0\ncontributors: 0\nlastUpdated: 2026-11-23\n") {
		t.Errorf("MEMORY.md:\n%s", mem)
	}
	skill := readText(t, filepath.Join(dir, "review-pr", "SKILL.md"))
	for _, s := range []string{"name: review-pr\n", "Use when the user asks", "version: 0.1.0\n", "# Review pr\n"} {
		if !strings.Contains(skill, s) {
			t.Errorf("SKILL.md lacks %q:\n%s", s, skill)
		}
	}
	// Both validate, stateful siblings included, as created: their
	// placeholders are warnings, which --strict refuses until they are
	// filled in.
	if v := runStax(t, "validate", dir); v.Code != 0 || !strings.Contains(v.Stdout+v.Stderr, "[placeholder]") {
		t.Errorf("the new skills do not validate, or without their placeholders: %d %s %s", v.Code, v.Stdout, v.Stderr)
	}
	if v := runStax(t, "validate", "--strict", dir); v.Code != 1 || !strings.Contains(v.Stdout+v.Stderr, "SKILL.md:4") {
		t.Errorf("validate --strict accepts the placeholders: %d %s %s", v.Code, v.Stdout, v.Stderr)
	}
	if v := runStax(t, "render", filepath.Join(dir, "incident-log")); v.Code != 0 || !strings.Contains(v.Stderr, "CALIBRATION.md") {
		t.Errorf("render: %d %s", v.Code, v.Stderr)
	}

	// An existing folder is never touched; a bad name is refused.
	filetest.WriteFile(t, filepath.Join(dir, "mine", "notes.md"), "my notes\n")
	r = runStax(t, "new", "skill", "mine", dir)
	if r.Code != 1 || !strings.Contains(r.Stderr, "skill folder exists") {
		t.Errorf("existing: %d %s", r.Code, r.Stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "mine")); len(entries) != 1 {
		t.Errorf("the existing folder changed: %v", entries)
	}
	for _, name := range []string{"Review", "../escape", "a/b", "x-"} {
		if r := runStax(t, "new", "skill", name, dir); r.Code != 1 || !strings.Contains(r.Stderr, "invalid skill name") {
			t.Errorf("%q: %d %s", name, r.Code, r.Stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); !os.IsNotExist(err) {
		t.Error("a name escaped the skills directory")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
