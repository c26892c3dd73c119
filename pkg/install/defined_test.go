package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"

	"github.com/stax-dev/stax/pkg/staxyaml"
)

// TestPlaceDefinedRuntime pins that a runtime stax.yaml defines by its
// folders is installed into like one stax knows: by name in
// install.runtimes or --runtime, into its project folder or, in user
// scope, its user folder; and that it shares a target with a known
// runtime reading the same folder.
func TestPlaceDefinedRuntime(t *testing.T) {
	t.Parallel()
	proj, home := t.TempDir(), t.TempDir()
	defaults := &staxyaml.InstallSpec{
		Runtimes: []string{"zed-agent", "codex"},
		Defined: []staxyaml.RuntimeDefinition{
			{Name: "zed-agent", Project: ".zed/skills", User: ".config/zed/skills"},
			{Name: "shared", Project: ".agents/skills", User: ".agents/skills"},
		},
	}
	for _, tc := range []struct {
		name     string
		where    PlaceOptions
		dirs     []string
		runtimes [][]string
	}{
		{"from stax.yaml", PlaceOptions{ProjectDir: proj, Defaults: defaults},
			[]string{filepath.Join(proj, ".zed/skills"), filepath.Join(proj, ".agents/skills")}, [][]string{{"zed-agent"}, {"codex"}}},
		{"user scope", PlaceOptions{ProjectDir: proj, Defaults: defaults, Scope: "user", Home: home},
			[]string{filepath.Join(home, ".config/zed/skills"), filepath.Join(home, ".agents/skills")}, [][]string{{"zed-agent"}, {"codex"}}},
		{"named by the flag", PlaceOptions{ProjectDir: proj, Defaults: defaults, Runtimes: []string{"shared", "agents"}},
			[]string{filepath.Join(proj, ".agents/skills")}, [][]string{{"shared", "agents"}}},
	} {
		p, err := Place(tc.where)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(p.Dirs(), tc.dirs) {
			t.Errorf("%s: dirs %v, want %v", tc.name, p.Dirs(), tc.dirs)
		}
		for i, target := range p.Targets {
			if !slices.Equal(Names(target.Runtimes), tc.runtimes[i]) {
				t.Errorf("%s: target %d runtimes %v, want %v", tc.name, i, Names(target.Runtimes), tc.runtimes[i])
			}
		}
	}
}

// TestSeenTwiceInProjectAndHome pins the warning for a skill a runtime
// finds both in its project folder and in its user folder, and no
// warning for a skill it finds once, or a directory without SKILL.md.
func TestSeenTwiceInProjectAndHome(t *testing.T) {
	t.Parallel()
	proj, home := t.TempDir(), t.TempDir()
	for _, dir := range []string{
		filepath.Join(proj, ".claude/skills/review"), filepath.Join(home, ".claude/skills/review"),
		filepath.Join(proj, ".claude/skills/lint"),
		filepath.Join(proj, ".claude/skills/notes"),
	} {
		filetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: x\ndescription: x\n---\n")
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude/skills/notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Place(PlaceOptions{ProjectDir: proj, Home: home, Runtimes: []string{"claude-code"}})
	if err != nil {
		t.Fatal(err)
	}
	got := SeenTwice(p, []string{"lint", "notes", "review"})
	if len(got) != 1 || !strings.Contains(got[0].Message, "skill review: Claude Code reads it from 2 folders") ||
		!strings.Contains(got[0].Message, filepath.Join(home, ".claude/skills/review")) {
		t.Errorf("warnings %q: want one, of review in the project and in home", got)
	}
}
