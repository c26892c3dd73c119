package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/skill"
)

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc string, extra ...string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n" + strings.Join(extra, "\n") + "\n---\nBody of " + name + ".\n"
}

// layout builds a project and a home with skills in every kind of folder
// Claude Code and Cursor read.
func layout(t *testing.T) (project, home string) {
	project, home = t.TempDir(), t.TempDir()
	// Project, Claude Code's folder.
	write(t, filepath.Join(project, ".claude/skills/review/SKILL.md"), skillMD("review", "Project review. Use when reviewing."))
	write(t, filepath.Join(project, ".claude/skills/broken/SKILL.md"), "---\nname: broken\ndescription: a: b\n---\n")
	write(t, filepath.Join(project, ".claude/skills/lower/skill.md"), skillMD("lower", "Misnamed."))
	write(t, filepath.Join(project, ".claude/skills/notes/README.md"), "not a skill\n")
	write(t, filepath.Join(project, ".claude/skills/.git/SKILL.md"), skillMD("git", "hidden"))
	write(t, filepath.Join(project, ".claude/skills/stray.md"), "a file\n")
	write(t, filepath.Join(project, ".claude/skills/nodesc/SKILL.md"), "---\nname: nodesc\n---\n")
	// Project, the shared folder (Cursor reads it second).
	write(t, filepath.Join(project, ".agents/skills/review/SKILL.md"), skillMD("review", "Shared review."))
	write(t, filepath.Join(project, ".agents/skills/deploy/SKILL.md"), skillMD("deploy", "Deploy it.\n  Use when shipping."))
	// User.
	write(t, filepath.Join(home, ".claude/skills/review/SKILL.md"), skillMD("review", "User review."))
	write(t, filepath.Join(home, ".claude/skills/broken/SKILL.md"), skillMD("broken", "The user's working copy."))
	write(t, filepath.Join(home, ".claude/skills/commit/SKILL.md"), skillMD("commit", "Commit.", "disable-model-invocation: true", "model: opus", "allowed-tools: [Read]"))
	write(t, filepath.Join(home, ".cursor/skills/fmt/SKILL.md"), skillMD("fmt", "Format."))
	// Plugins.
	write(t, filepath.Join(home, ".claude/plugins/acme/skills/commit/SKILL.md"), skillMD("commit", "Plugin commit."))
	write(t, filepath.Join(home, ".claude/plugins/acme/skills/lint/SKILL.md"), skillMD("lint", "Plugin lint."))
	return project, home
}

type row struct {
	Key        string
	Scope      agent.Scope
	ShadowedBy string // relative to the project or home, "~/" for home
	Problem    string // a substring, "" for none
}

func rows(l *Listing, project, home string) []row {
	var out []row
	for _, s := range l.Skills {
		shadow := s.ShadowedBy
		if r, err := filepath.Rel(project, shadow); shadow != "" && err == nil && !strings.HasPrefix(r, "..") {
			shadow = filepath.ToSlash(r)
		}
		if r, err := filepath.Rel(home, s.ShadowedBy); s.ShadowedBy != "" && err == nil && !strings.HasPrefix(r, "..") {
			shadow = "~/" + filepath.ToSlash(r)
		}
		out = append(out, row{s.Key, s.Scope, shadow, s.Problem})
	}
	return out
}

func TestList(t *testing.T) {
	project, home := layout(t)
	tests := []struct {
		runtime string
		want    []row
		prompt  string
	}{
		{runtime: "claude-code", want: []row{
			{"broken", agent.ScopeProject, "", "frontmatter does not parse"},
			{"lower", agent.ScopeProject, "", "no SKILL.md, but skill.md"},
			{"nodesc", agent.ScopeProject, "", "has no description"},
			{"review", agent.ScopeProject, "", ""},
			{"broken", agent.ScopeUser, "", ""},
			{"commit", agent.ScopeUser, "", ""},
			{"review", agent.ScopeUser, ".claude/skills/review", ""},
			{"commit", agent.ScopePlugin, "~/.claude/skills/commit", ""},
			{"lint", agent.ScopePlugin, "", ""},
		}, prompt: "- broken: The user's working copy.\n- lint: Plugin lint.\n- review: Project review. Use when reviewing.\n"},
		{runtime: "cursor", want: []row{
			{"deploy", agent.ScopeProject, "", ""},
			{"review", agent.ScopeProject, "", ""},
			{"broken", agent.ScopeProject, "", "does not parse"},
			{"lower", agent.ScopeProject, "", "skill.md"},
			{"nodesc", agent.ScopeProject, "", "no description"},
			{"review", agent.ScopeProject, ".agents/skills/review", ""},
			{"fmt", agent.ScopeUser, "", ""},
		}, prompt: "- deploy: Deploy it. Use when shipping.\n- fmt: Format.\n- review: Shared review.\n"},
		{runtime: "windsurf", want: nil, prompt: ""},
	}
	for _, tt := range tests {
		t.Run(tt.runtime, func(t *testing.T) {
			rt, _ := agent.Lookup(tt.runtime)
			l, err := List(Options{Runtime: rt, Project: project, Home: home})
			if err != nil {
				t.Fatal(err)
			}
			got := rows(l, project, home)
			if len(got) != len(tt.want) {
				t.Fatalf("skills =\n%v\nwant\n%v", got, tt.want)
			}
			for i := range got {
				w, g := tt.want[i], got[i]
				if g.Key != w.Key || g.Scope != w.Scope || g.ShadowedBy != w.ShadowedBy ||
					(w.Problem == "") != (g.Problem == "") || !strings.Contains(g.Problem, w.Problem) {
					t.Errorf("skill %d = %+v, want %+v", i, g, w)
				}
			}
			if p := l.Prompt(); p != tt.prompt {
				t.Errorf("prompt =\n%s\nwant\n%s", p, tt.prompt)
			}
		})
	}
}

func TestListDetails(t *testing.T) {
	project, home := layout(t)
	rt, _ := agent.Lookup("claude-code")
	l, err := List(Options{Runtime: rt, Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	// The broken project skill does not shadow the user's; the listing says
	// which one loads.
	if s := l.Skills[0]; !strings.Contains(s.Problem, "the runtime loads "+filepath.Join(home, ".claude/skills/broken")+" instead") {
		t.Errorf("broken: %q", s.Problem)
	}
	// commit sets disable-model-invocation: Claude Code keeps it out of the
	// model's menu; its fields are all honoured.
	commit, ok := l.Find("commit")
	if !ok || !commit.ModelHidden || commit.Scope != agent.ScopeUser || len(commit.Ignored) != 0 {
		t.Errorf("commit = %+v", commit)
	}
	if commit.Body() != "Body of commit.\n" {
		t.Errorf("body = %q", commit.Body())
	}
	// Under Codex, model and allowed-tools are ignored.
	codex, _ := agent.Lookup("codex")
	write(t, filepath.Join(home, ".agents/skills/commit/SKILL.md"), skillMD("commit", "Commit.", "model: opus", "allowed-tools: [Read]"))
	l, _ = List(Options{Runtime: codex, Project: project, Home: home})
	if c, ok := l.Find("commit"); !ok || !slices.Equal(c.Ignored, []string{"allowed-tools", "model"}) || c.ModelHidden {
		t.Errorf("codex commit = %+v", c)
	}
	if len(l.Folders) != 3 || !l.Folders[0].Exists || l.Folders[2].Exists {
		t.Errorf("folders = %+v", l.Folders)
	}
}

func TestFind(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, ".claude/skills/dir-name/SKILL.md"), skillMD("front-name", "Renamed."))
	write(t, filepath.Join(project, ".claude/skills/bad/SKILL.md"), "no frontmatter")
	rt, _ := agent.Lookup("claude-code")
	l, err := List(Options{Runtime: rt, Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dir-name", "front-name"} {
		if s, ok := l.Find(name); !ok || s.Key != "dir-name" {
			t.Errorf("Find(%q) = %+v, %v", name, s, ok)
		}
	}
	if s, ok := l.Find("bad"); ok || s.Problem == "" {
		t.Errorf("Find(bad) = %+v, %v; want the broken skill, not loadable", s, ok)
	}
	if _, ok := l.Find("missing"); ok {
		t.Error("found a missing skill")
	}
}

func TestSymlinkedSkill(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	store := t.TempDir()
	write(t, filepath.Join(store, "linked/SKILL.md"), skillMD("linked", "Linked in."))
	if err := os.MkdirAll(filepath.Join(project, ".claude/skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(store, "linked"), filepath.Join(project, ".claude/skills/linked")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	rt, _ := agent.Lookup("claude-code")
	l, err := List(Options{Runtime: rt, Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := l.Find("linked"); !ok || s.Description != "Linked in." {
		t.Errorf("linked = %+v, %v", s, ok)
	}
}

// TestListOversizeFrontmatter: a SKILL.md over the frontmatter limits is
// listed as a skill that cannot load, with the line, and not parsed.
func TestListOversizeFrontmatter(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() <= skill.MaxFrontmatterSize; i++ {
		fmt.Fprintf(&b, "  key%d: %s\n", i, strings.Repeat("v", 100))
	}
	write(t, filepath.Join(project, ".claude/skills/wide/SKILL.md"), skillMD("wide", "Wide.", "metadata:\n"+b.String()))
	write(t, filepath.Join(project, ".claude/skills/many/SKILL.md"), skillMD("many", "Many.", "tags: ["+strings.Repeat("t,", skill.MaxFrontmatterNodes)+"t]"))
	rt, _ := agent.Lookup("claude-code")
	l, err := List(Options{Runtime: rt, Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Skills {
		if !strings.Contains(s.Problem, "over a limit") || s.Line == 0 || s.Visible() {
			t.Errorf("skill %s: problem %q on line %d, want it unloadable over a limit, with a line", s.Key, s.Problem, s.Line)
		}
	}
	if len(l.Skills) != 2 {
		t.Errorf("listed %d skills, want 2", len(l.Skills))
	}
}

// TestListTakesTheSkillGiven: a skill that Options.Parsed gives, parsed
// from the SKILL.md the writer of the folder has, is listed in place of
// the file on disk, problems included; a skill it does not give is read
// from its folder.
func TestListTakesTheSkillGiven(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	skills := filepath.Join(project, ".claude/skills")
	write(t, filepath.Join(skills, "given/SKILL.md"), skillMD("given", "On disk."))
	write(t, filepath.Join(skills, "broken/SKILL.md"), skillMD("broken", "On disk."))
	write(t, filepath.Join(skills, "read/SKILL.md"), skillMD("read", "On disk."))
	given := map[string]string{
		"given":  skillMD("given", "As extracted."),
		"broken": "---\nname: broken\ndescription: a: b\n---\n",
	}
	rt, _ := agent.Lookup("claude-code")
	loc := agent.Location{Scope: agent.ScopeProject, Dir: skills}
	l, err := List(Options{Runtime: rt, Project: project, Home: home, Parsed: func(dir string) (Skill, bool) {
		data, ok := given[filepath.Base(dir)]
		return Parse(rt, loc, filepath.Base(dir), []byte(data)), ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := l.Find("given"); !ok || s.Description != "As extracted." || s.Body() != "Body of given.\n" {
		t.Errorf("given = %+v, want the SKILL.md given", s)
	}
	if s, ok := l.Find("read"); !ok || s.Description != "On disk." {
		t.Errorf("read = %+v, want the SKILL.md on disk", s)
	}
	for _, s := range l.Skills {
		if s.Key == "broken" && !strings.Contains(s.Problem, "does not parse") {
			t.Errorf("broken: problem %q, want the given SKILL.md's", s.Problem)
		}
	}
}

// Parse makes of a SKILL.md the skill List makes of it on disk, to the
// problem and its line: a skill parsed as it is extracted is reported as
// one read back would be.
func TestParseIsWhatListReads(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	skills := filepath.Join(project, ".claude/skills")
	files := map[string]string{
		"good":     skillMD("good", "Good."),
		"broken":   "---\nname: broken\ndescription: a: b\n---\n",
		"nameless": "---\ndescription: d\n---\nbody\n",
		"hidden":   "---\nname: hidden\ndescription: d\ndisable-model-invocation: true\nmodel: m\n---\nbody\n",
	}
	for name, data := range files {
		write(t, filepath.Join(skills, name, "SKILL.md"), data)
	}
	rt, _ := agent.Lookup("claude-code")
	l, err := List(Options{Runtime: rt, Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	loc := agent.Location{Scope: agent.ScopeProject, Dir: skills}
	for _, s := range l.Skills {
		if got := Parse(rt, loc, s.Key, []byte(files[s.Key])); !reflect.DeepEqual(got, s) {
			t.Errorf("Parse of %s = %+v, want what List read, %+v", s.Key, got, s)
		}
	}
	if len(l.Skills) != len(files) {
		t.Errorf("listed %d skills, want %d", len(l.Skills), len(files))
	}
}
