package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stax-dev/stax/pkg/validate"
)

// TestSkillValidatesStrictly pins that a new skill breaks no rule but
// one: its placeholders, which --strict refuses until they are filled in.
func TestSkillValidatesStrictly(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{{Name: "plain"}, {Name: "with-memory", Stateful: true}} {
		o.SkillsDir, o.Today = dir, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
		if _, err := Skill(o); err != nil {
			t.Fatal(err)
		}
	}
	report, err := validate.Dir(validate.Options{Root: dir, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Errors) == 0 || len(report.Warnings) > 0 || len(report.Skills) != 2 {
		t.Errorf("errors %v, warnings %v, skills %v", report.Errors, report.Warnings, report.Skills)
	}
	for _, d := range report.Errors {
		if d.Code != validate.CodePlaceholder {
			t.Errorf("a new skill breaks a rule other than its placeholders: %v", d)
		}
	}
}

func TestSkillRefuses(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Skill(Options{SkillsDir: dir, Name: "taken"}); !errors.Is(err, ErrExists) {
		t.Errorf("existing folder: %v", err)
	}
	for _, name := range []string{"", "Upper", "../up", "a/b", "a--b", "-a"} {
		if _, err := Skill(Options{SkillsDir: dir, Name: name}); !errors.Is(err, ErrInvalidName) {
			t.Errorf("%q: %v", name, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left in the skills directory: %v", entries)
	}
}
