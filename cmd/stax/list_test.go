package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/discover"
)

// discoveryLayout installs example skills where Claude Code and Cursor
// look, under a temporary HOME and project.
func discoveryLayout(t *testing.T) (project, home string) {
	t.Helper()
	project, home = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	skills := filepath.Join(examples, "skills")
	copyTree(t, filepath.Join(skills, "review-pr"), filepath.Join(project, ".claude/skills/review-pr"))
	copyTree(t, filepath.Join(skills, "fix-issue"), filepath.Join(project, ".claude/skills/fix-issue"))
	copyTree(t, filepath.Join(skills, "review-pr"), filepath.Join(home, ".claude/skills/review-pr"))
	copyTree(t, filepath.Join(skills, "write-changelog"), filepath.Join(home, ".claude/plugins/acme/skills/write-changelog"))
	filetest.WriteFile(t, filepath.Join(project, ".claude/skills/broken/SKILL.md"), "---\nname: broken\ndescription: a: b\n---\n")
	filetest.WriteFile(t, filepath.Join(project, ".cursor/skills/fmt/SKILL.md"), "---\nname: fmt\ndescription: Format code. Use when asked to.\n---\nFormat it.\n")
	return project, home
}

func TestList(t *testing.T) {
	project, home := discoveryLayout(t)
	r := runStax(t, "list", "--dir", project)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{
		"Runtime claude-code; folders in priority order:",
		"  project  " + filepath.Join(project, ".claude/skills") + "\n",
		"  user     " + filepath.Join(home, ".claude/skills") + "\n",
		"  plugin   " + filepath.Join(home, ".claude/plugins/acme/skills") + "\n",
		"(plugin folders are those matching ~/.claude/plugins/*/skills)",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.Stdout)
		}
	}
	rows := map[string]string{}
	for _, line := range strings.Split(r.Stdout, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && (f[1] == "project" || f[1] == "user" || f[1] == "plugin") {
			rows[f[0]+" "+f[1]] = strings.Join(f[2:], " ")
		}
	}
	for key, status := range map[string]string{
		"broken project":         "warning: cannot load",
		"fix-issue project":      "loaded",
		"review-pr project":      "loaded",
		"review-pr user":         "shadowed by " + filepath.Join(project, ".claude/skills/review-pr"),
		"write-changelog plugin": "loaded",
	} {
		if !strings.HasPrefix(rows[key], status) {
			t.Errorf("%s: %q, want %q", key, rows[key], status)
		}
	}
	if len(rows) != 5 {
		t.Errorf("rows = %v", rows)
	}
	if !strings.Contains(r.Stderr, "warning: "+filepath.Join(project, ".claude/skills/broken")+": SKILL.md frontmatter does not parse: line 3") {
		t.Errorf("stderr lacks the broken skill's warning:\n%s", r.Stderr)
	}
}

func TestListRuntimes(t *testing.T) {
	project, _ := discoveryLayout(t)
	r := runStax(t, "list", "--dir", project, "--runtime", "cursor", "--output", "json")
	var out struct {
		Runtime string
		Skills  []struct {
			Key, Scope, ShadowedBy, Problem string
			IgnoredFields                   []string
		}
	}
	decodeJSON(t, r.Stdout, &out)
	var got []string
	for _, s := range out.Skills {
		got = append(got, s.Key+"/"+s.Scope)
	}
	// Cursor reads .cursor/skills, then .agents/skills, then .claude/skills.
	if r.Code != 0 || out.Runtime != "cursor" || strings.Join(got, " ") != "fmt/project broken/project fix-issue/project review-pr/project" {
		t.Errorf("exit %d, runtime %s, skills %v", r.Code, out.Runtime, got)
	}
	for _, s := range out.Skills {
		if s.Key == "fix-issue" && strings.Join(s.IgnoredFields, ",") != "allowed-tools,argument-hint,model,user-invocable" {
			t.Errorf("fix-issue ignored fields under cursor: %v", s.IgnoredFields)
		}
	}
	if !strings.Contains(runStax(t, "list", "--dir", project, "--runtime", "cursor").Stderr, "notice: fix-issue: cursor ignores allowed-tools and model") {
		t.Error("no notice about allowed-tools and model")
	}

	r = runStax(t, "list", "--runtime", "vim")
	if r.Code != 1 || !strings.Contains(r.Stderr, "known runtimes: agents, claude-code (claude), cline, codex") {
		t.Errorf("unknown runtime: exit %d %s", r.Code, r.Stderr)
	}
	r = runStax(t, "list", "--dir", project, "--runtime", "windsurf")
	if r.Code != 0 || !strings.Contains(r.Stdout, "No skills.") {
		t.Errorf("windsurf: exit %d %s", r.Code, r.Stdout)
	}
}

func TestListPrompt(t *testing.T) {
	project, _ := discoveryLayout(t)
	r := runStax(t, "list", "--dir", project, "--prompt")
	want := "- fix-issue: Fix a GitHub issue following team standards, from reproduction to pull request. Use when the user gives an issue number or link and asks for a fix.\n" +
		"- review-pr: Review a pull request against the team checklist and post one structured comment. Use when the user asks for a code review, a PR review, or feedback on a diff.\n" +
		"- write-changelog: Draft the changelog entry for a release from merged pull requests. Use when preparing a release or when the user asks what changed since the last tag.\n"
	if r.Code != 0 || r.Stdout != want {
		t.Errorf("exit %d, prompt =\n%s\nwant\n%s", r.Code, r.Stdout, want)
	}
	j := runStax(t, "list", "--dir", project, "--prompt", "--output", "json")
	var out struct{ Runtime, Prompt string }
	decodeJSON(t, j.Stdout, &out)
	if out.Prompt != want || out.Runtime != "claude-code" {
		t.Errorf("json = %+v", out)
	}
}

func TestShow(t *testing.T) {
	project, home := discoveryLayout(t)
	r := runStax(t, "show", "review-pr", "--dir", project)
	body := readText(t, filepath.Join(examples, "skills/review-pr/SKILL.md"))
	body = body[strings.Index(body, "\n---\n")+len("\n---\n"):]
	want := "Skill:       review-pr (project, " + filepath.Join(project, ".claude/skills/review-pr") + ")\n" +
		"Description: Review a pull request against the team checklist and post one structured comment. Use when the user asks for a code review, a PR review, or feedback on a diff.\n" +
		"---\n" + body
	if r.Code != 0 || r.Stdout != want {
		t.Errorf("exit %d\n%s\nwant\n%s", r.Code, r.Stdout, want)
	}

	// Under Codex, which reads none of these folders, nothing is found.
	r = runStax(t, "show", "review-pr", "--dir", project, "--runtime", "codex")
	if r.Code != 1 || !strings.Contains(r.Stderr, `codex sees no skill "review-pr"`) {
		t.Errorf("codex: exit %d %s", r.Code, r.Stderr)
	}
	// A skill that cannot load is an error saying why.
	r = runStax(t, "show", "broken", "--dir", project)
	if r.Code != 1 || !strings.Contains(r.Stderr, "claude-code cannot load broken") {
		t.Errorf("broken: exit %d %s", r.Code, r.Stderr)
	}
	// JSON carries the body and the ignored fields.
	filetest.WriteFile(t, filepath.Join(home, ".cursor/skills/fixer/SKILL.md"),
		"---\nname: fixer\ndescription: Fix. Use when broken.\nmodel: opus\nversion: 1.0.0\n---\nFix $ARGUMENTS.\n")
	j := runStax(t, "show", "fixer", "--dir", project, "--runtime", "cursor", "--output", "json")
	var out struct {
		Runtime, Name, Scope, Body string
		IgnoredFields              []string
	}
	decodeJSON(t, j.Stdout, &out)
	if j.Code != 0 || out.Body != "Fix $ARGUMENTS.\n" || out.Scope != "user" || strings.Join(out.IgnoredFields, ",") != "model" {
		t.Errorf("exit %d, %+v", j.Code, out)
	}
	if text := runStax(t, "show", "fixer", "--dir", project, "--runtime", "cursor"); !strings.Contains(text.Stdout, "Ignored by cursor: model\n") {
		t.Errorf("text lacks the ignored fields:\n%s", text.Stdout)
	}
}

// list names, for each skill stax installed, the package, version and
// digest it came from, and "local" for a skill it did not install; in
// the text columns and in the JSON fields.
func TestListNamesThePackageOfEachInstalledSkill(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	pushed := pushExamples(t, ref)
	project := t.TempDir()
	if r := runStax(t, "install", ref, "--dir", project); r.Code != 0 {
		t.Fatalf("install: exit %d %s", r.Code, r.Stderr)
	}
	filetest.WriteFile(t, filepath.Join(project, ".claude/skills/mine/SKILL.md"), "---\nname: mine\ndescription: Mine. Use when asked.\n---\nMine.\n")

	r := runStax(t, "list", "--dir", project)
	if r.Code != 0 {
		t.Fatalf("list: exit %d %s", r.Code, r.Stderr)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(r.Stdout, "\n") {
		if f := strings.Fields(line); len(f) >= 6 && f[1] == "project" {
			rows[f[0]] = f[2:6]
		}
	}
	short := pushed.Digest[:len("sha256:")+12]
	if got, want := rows["review-pr"], []string{"loaded", ref, "1.0.0", short}; !slices.Equal(got, want) {
		t.Errorf("review-pr row %q, want %q:\n%s", got, want, r.Stdout)
	}
	if got, want := rows["mine"], []string{"loaded", "local", "-", "-"}; !slices.Equal(got, want) {
		t.Errorf("mine row %q, want %q:\n%s", got, want, r.Stdout)
	}
	if !strings.Contains(r.Stdout, "PACKAGE") {
		t.Errorf("no PACKAGE column:\n%s", r.Stdout)
	}

	r = runStax(t, "list", "--dir", project, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("list --output json: exit %d %s", r.Code, r.Stderr)
	}
	var l discover.Listing
	decodeJSON(t, r.Stdout, &l)
	found := 0
	for _, s := range l.Skills {
		switch s.Key {
		case "review-pr":
			found++
			want := discover.Origin{Package: ref, Version: "1.0.0", Digest: pushed.Digest}
			if s.Installed == nil || *s.Installed != want {
				t.Errorf("review-pr installed = %+v, want %+v", s.Installed, want)
			}
		case "mine":
			found++
			if s.Installed != nil {
				t.Errorf("a local skill lists a package: %+v", s.Installed)
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d of the two skills:\n%s", found, r.Stdout)
	}
}

// The fields a runtime ignores are one notice for the skills that have
// them, naming the first five, as an install's warnings are; --verbose
// gives a line a skill.
func TestListGroupsIgnoredFields(t *testing.T) {
	project := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	for i := range 7 {
		name := fmt.Sprintf("s%d", i)
		filetest.WriteFile(t, filepath.Join(project, ".cursor/skills", name, "SKILL.md"),
			"---\nname: "+name+"\ndescription: Skill "+name+". Use when testing list.\nmodel: opus\n---\nBody.\n")
	}
	r := runStax(t, "list", "--dir", project, "--runtime", "cursor")
	want := "notice: cursor ignores model: 7 skills: s0, s1, s2, s3, s4 and 2 more (--verbose lists each)\n"
	if r.Code != 0 || r.Stderr != want {
		t.Errorf("list: exit %d, stderr\n%s\nwant\n%s", r.Code, r.Stderr, want)
	}
	r = runStax(t, "list", "--dir", project, "--runtime", "cursor", "--verbose")
	if n := strings.Count(r.Stderr, "notice: "); r.Code != 0 || n != 7 || !strings.Contains(r.Stderr, "notice: s6: cursor ignores model\n") {
		t.Errorf("list --verbose: exit %d, %d notices, want one a skill:\n%s", r.Code, n, r.Stderr)
	}
}
