package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	want := []string{"agents", "claude-code", "cline", "codex", "cursor", "gemini", "github-copilot", "goose", "junie", "kiro", "opencode", "qwen-code", "roo-code", "windsurf"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, r := range All() {
		if r.Title == "" || len(r.Project) == 0 || len(r.User) == 0 {
			t.Errorf("%s: incomplete: %+v", r.Name, r)
		}
		for _, d := range append(append(slices.Clone(r.Project), r.User...), r.Plugins...) {
			if filepath.IsAbs(d) || strings.HasPrefix(d, "~") || !strings.HasSuffix(d, "skills") {
				t.Errorf("%s: folder %q must be relative and end in skills", r.Name, d)
			}
		}
		for _, f := range []string{"name", "description"} {
			if !r.Honours(f) {
				t.Errorf("%s does not honour %s", r.Name, f)
			}
		}
	}
	if _, ok := Lookup(Default); !ok {
		t.Errorf("default runtime %q is not in the table", Default)
	}
}

func TestLookupAndFolders(t *testing.T) {
	tests := []struct {
		name             string
		project, user    []string
		plugins          []string
		honours, ignores []string
	}{
		{name: "claude-code", project: []string{".claude/skills"}, user: []string{".claude/skills"},
			plugins: []string{".claude/plugins/*/skills"},
			honours: []string{"allowed-tools", "model", "argument-hint", "user-invocable", "disable-model-invocation"},
			ignores: []string{"priority", "tags"}},
		{name: "codex", project: []string{".agents/skills"}, user: []string{".agents/skills", ".codex/skills"},
			ignores: []string{"allowed-tools", "model"}},
		{name: "cursor", project: []string{".cursor/skills", ".agents/skills", ".claude/skills"}, user: []string{".cursor/skills"},
			ignores: []string{"allowed-tools", "model"}},
		{name: "github-copilot", project: []string{".github/skills", ".claude/skills", ".agents/skills"}, user: []string{".copilot/skills"}},
		{name: "opencode", project: []string{".opencode/skills", ".claude/skills", ".agents/skills"}, user: []string{".config/opencode/skills"}},
		{name: "gemini", project: []string{".gemini/skills", ".agents/skills"}, user: []string{".gemini/skills"}},
		{name: "windsurf", project: []string{".windsurf/skills"}, user: []string{".codeium/windsurf/skills"}},
		{name: "goose", project: []string{".agents/skills"}, user: []string{".agents/skills"}},
		{name: "agents", project: []string{".agents/skills"}, user: []string{".agents/skills"}},
		{name: "kiro", project: []string{".kiro/skills"}, user: []string{".kiro/skills"}},
		{name: "cline", project: []string{".cline/skills", ".clinerules/skills"}, user: []string{".cline/skills"}},
		{name: "roo-code", project: []string{".roo/skills"}, user: []string{".roo/skills"}},
		{name: "junie", project: []string{".junie/skills"}, user: []string{".junie/skills"}},
		{name: "qwen-code", project: []string{".qwen/skills"}, user: []string{".qwen/skills"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := Lookup(tt.name)
			if !ok {
				t.Fatal("not found")
			}
			if got := r.ProjectDirs("/p"); !slices.Equal(got, join("/p", tt.project)) {
				t.Errorf("ProjectDirs = %v", got)
			}
			if got := r.UserDirs("/h"); !slices.Equal(got, join("/h", tt.user)) {
				t.Errorf("UserDirs = %v", got)
			}
			if !slices.Equal(r.Plugins, tt.plugins) {
				t.Errorf("Plugins = %v", r.Plugins)
			}
			for _, f := range tt.honours {
				if !r.Honours(f) {
					t.Errorf("does not honour %s", f)
				}
			}
			if got := r.Ignored(append(slices.Clone(tt.honours), tt.ignores...)); !slices.Equal(got, tt.ignores) {
				t.Errorf("Ignored = %v, want %v", got, tt.ignores)
			}
		})
	}
	if _, ok := Lookup("vim"); ok {
		t.Error("found an unknown runtime")
	}
	if _, err := Find("vim"); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("Find error = %v", err)
	}
}

func TestTableCannotBeChanged(t *testing.T) {
	r, _ := Lookup("claude-code")
	r.Project[0] = "elsewhere"
	r.Fields[0] = "x"
	again, _ := Lookup("claude-code")
	if again.Project[0] != ".claude/skills" || again.Fields[0] != "name" {
		t.Error("Lookup returned the table's own slices")
	}
}

func TestLocations(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{"b-plugin", "a-plugin"} {
		if err := os.MkdirAll(filepath.Join(home, ".claude", "plugins", p, "skills"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A plugin without skills is not a location.
	if err := os.MkdirAll(filepath.Join(home, ".claude", "plugins", "c-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, _ := Lookup("claude-code")
	got, err := r.Locations("/proj", home)
	if err != nil {
		t.Fatal(err)
	}
	want := []Location{
		{ScopeProject, "/proj/.claude/skills"},
		{ScopeUser, filepath.Join(home, ".claude/skills")},
		{ScopePlugin, filepath.Join(home, ".claude/plugins/a-plugin/skills")},
		{ScopePlugin, filepath.Join(home, ".claude/plugins/b-plugin/skills")},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Locations =\n%v\nwant\n%v", got, want)
	}
	// The project is the home directory: one folder, listed once, as project.
	g, _ := Lookup("goose")
	got, _ = g.Locations(home, home)
	if len(got) != 1 || got[0].Scope != ScopeProject {
		t.Errorf("goose at home: %v", got)
	}
}

func TestHonouredByAny(t *testing.T) {
	for field, want := range map[string]bool{
		"name": true, "allowed-tools": true, "model": true, "hooks": true,
		"version": false, "tags": false, "priority": false, "x-custom": false,
	} {
		if got := HonouredByAny(field); got != want {
			t.Errorf("HonouredByAny(%q) = %v", field, got)
		}
	}
}

func TestAliases(t *testing.T) {
	for alias, name := range map[string]string{
		"claude": "claude-code", "Claude": "claude-code", "copilot": "github-copilot",
		"github-copilot": "github-copilot", "GitHub-Copilot": "github-copilot", "gemini-cli": "gemini",
		"roo": "roo-code", "qwen": "qwen-code",
	} {
		r, err := Find(alias)
		if err != nil || r.Name != name {
			t.Errorf("Find(%q) = %q, %v; want %s", alias, r.Name, err, name)
		}
	}
	_, err := Find("vim")
	if err == nil || !strings.Contains(err.Error(), `unknown runtime "vim"; known runtimes: agents, claude-code (claude), cline, codex, cursor, gemini (gemini-cli), github-copilot (copilot), goose, junie, kiro, opencode, qwen-code (qwen), roo-code (roo), windsurf`) {
		t.Errorf("error %v", err)
	}
	// A typo names the runtime meant.
	for typed, meant := range map[string]string{"claud-code": "claude-code", "curser": "cursor", "Codx": "codex"} {
		if _, err := Find(typed); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown runtime %q (did you mean %s?); known runtimes: agents", typed, meant)) {
			t.Errorf("Find(%q): %v, want it to name %s", typed, err, meant)
		}
	}
	if got := NamesAndAliases(); !slices.Contains(got, "claude") || !slices.Contains(got, "claude-code") || !slices.IsSorted(got) {
		t.Errorf("NamesAndAliases() = %v", got)
	}
}
