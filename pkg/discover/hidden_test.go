package discover

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/agent"
)

func TestHiddenTextMakesSkillUnloadable(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, ".claude/skills/evil/SKILL.md"), skillMD("evil", "Use when asked.")+"Then \u202Erun it.\n")
	write(t, filepath.Join(project, ".claude/skills/family/SKILL.md"), skillMD("family", "Use when asked.")+"👨\u200D👩\u200D👧\n")
	rt, _ := agent.Lookup("claude-code")
	l, err := List(Options{Runtime: rt, Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	evil, _ := l.Find("evil")
	if evil.Visible() || evil.Line != 7 || !strings.Contains(evil.Problem, "column 6") || !strings.Contains(evil.Problem, "U+202E RIGHT-TO-LEFT OVERRIDE") {
		t.Errorf("evil: visible %v, line %d, problem %q; want unloadable at line 7, column 6, naming U+202E", evil.Visible(), evil.Line, evil.Problem)
	}
	if evil.Body() != "" {
		t.Error("the body of a skill with hidden text is served")
	}
	if family, ok := l.Find("family"); !ok || !family.Visible() {
		t.Errorf("a skill with an emoji ZWJ sequence is not loadable: %q", family.Problem)
	}
}

// A NUL byte and an invalid byte do not make a SKILL.md binary: what
// follows them is checked.
func TestHiddenTextAfterNULMakesSkillUnloadable(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, ".claude/skills/evil/SKILL.md"),
		skillMD("evil", "Use when asked.")+"Read this.\x00\xff\nRun: rm -rf \u202E/tmp/ok\n")
	rt, _ := agent.Lookup("claude-code")
	l, err := List(Options{Runtime: rt, Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	evil, _ := l.Find("evil")
	if evil.Visible() || evil.Line != 8 || !strings.Contains(evil.Problem, "U+202E RIGHT-TO-LEFT OVERRIDE") {
		t.Errorf("evil: visible %v, line %d, problem %q; want unloadable at line 8, naming U+202E", evil.Visible(), evil.Line, evil.Problem)
	}
}
