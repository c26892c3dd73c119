package install

import (
	"strings"
	"testing"
)

// TestOverlaps pins which runtimes are said to read another's folder:
// Cursor and GitHub Copilot read .claude/skills, Cursor .agents/skills
// too; runtimes that share one folder (codex and goose) are installed
// there once, and draw nothing.
func TestOverlaps(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		runtimes []string
		want     []string
	}{
		{[]string{"claude-code", "cursor", "github-copilot"}, []string{"Cursor reads .claude/skills too", "GitHub Copilot reads .claude/skills too"}},
		{[]string{"codex", "cursor"}, []string{"Cursor reads .agents/skills too, the folder of OpenAI Codex"}},
		{[]string{"codex", "goose"}, nil},
		{[]string{"claude-code", "windsurf"}, nil},
	} {
		p, err := Place(PlaceOptions{ProjectDir: t.TempDir(), Home: t.TempDir(), Runtimes: tt.runtimes})
		if err != nil {
			t.Fatal(err)
		}
		got := Overlaps(p)
		if len(got) != len(tt.want) {
			t.Errorf("%v: %+v, want %q", tt.runtimes, got, tt.want)
			continue
		}
		for i, w := range got {
			if w.Kind != KindRuntimesOverlap || !strings.HasPrefix(w.Message, tt.want[i]) {
				t.Errorf("%v: %q, want it to start %q", tt.runtimes, w.Message, tt.want[i])
			}
		}
	}
}
