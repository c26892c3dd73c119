package mcpserver

import (
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/render"
)

// TestSkillInvokeOverMaxSize: arguments that would grow a skill past
// render.MaxSize make the call a tool error, and the server keeps
// answering.
func TestSkillInvokeOverMaxSize(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"amp/SKILL.md":  skillMD("amp", "Repeats its arguments", strings.Repeat("$ARGUMENTS\n", 1000)),
		"good/SKILL.md": skillMD("good", "A good skill", "good body\n"),
	})
	_, cs := connect(t, f, Options{}, nil)
	arg := strings.Repeat("a", render.MaxSize/1000+1)
	text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "amp", "arguments": arg})
	if !isErr || !strings.Contains(text, "would exceed") {
		t.Errorf("Skill amp = %.200q (error %v), want a tool error about the size", text, isErr)
	}
	if text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "good"}); isErr || !strings.Contains(text, "good body") {
		t.Errorf("Skill good after the refusal = %q (error %v)", text, isErr)
	}
}
