//go:build unix

package discover

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/agent"
)

// TestListNamedPipeSkillMD: a SKILL.md that is a named pipe makes the
// skill unloadable, with the reason, instead of blocking the listing.
func TestListNamedPipeSkillMD(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, ".claude/skills/good/SKILL.md"), skillMD("good", "Good."))
	filetest.Mkfifo(t, filepath.Join(project, ".claude/skills/piped/SKILL.md"))
	rt, _ := agent.Lookup("claude-code")
	var l *Listing
	var err error
	filetest.Finishes(t, "List", func() { l, err = List(Options{Runtime: rt, Project: project, Home: home}) })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range l.Skills {
		got[s.Key] = s.Problem
	}
	if p, ok := got["piped"]; !ok || !strings.Contains(p, "not a regular file") {
		t.Errorf("piped skill problem = %q (listed %v), want not a regular file", p, ok)
	}
	if p := got["good"]; p != "" {
		t.Errorf("good skill problem = %q", p)
	}
}
