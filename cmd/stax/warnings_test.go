package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/workflow"
)

// manySkills writes a package of 20 skills into a project: 14 with model
// and allowed-tools, 3 with model alone, 3 with neither.
func manySkills(t *testing.T) (project string) {
	t.Helper()
	project = t.TempDir()
	filetest.WriteFile(t, filepath.Join(project, "stax.yaml"), "name: project\nversion: 0.1.0\n")
	for i := range 20 {
		name := fmt.Sprintf("skill-%02d", i)
		extra := ""
		switch {
		case i < 14:
			extra = "model: sonnet\nallowed-tools: [Read]\n"
		case i < 17:
			extra = "model: sonnet\n"
		}
		filetest.WriteFile(t, filepath.Join(project, "skills", name, "SKILL.md"),
			"---\nname: "+name+"\ndescription: The "+name+" skill. Use when testing warnings.\n"+extra+"---\nBody.\n")
	}
	return project
}

// warningLines are the lines of stderr that are warnings.
func warningLines(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "warning: ") {
			out = append(out, line)
		}
	}
	return out
}

// TestInstallWarningsAreALineAKind installs 20 skills into claude-code and
// cursor: Cursor ignores model and allowed-tools in 17 of them and reads
// .claude/skills as well as its own folder. That is said in a line a
// kind of warning naming the skills, not in a line a skill (60 lines
// before); --verbose says each, --quiet none, and --output json holds
// each message.
func TestInstallWarningsAreALineAKind(t *testing.T) {
	t.Parallel()
	useHome(t)
	project := manySkills(t)
	run := func(args ...string) result {
		t.Helper()
		r := runStax(t, append([]string{"install", project, "--dir", project, "--runtime", "claude-code,cursor", "--no-save"}, args...)...)
		if r.Code != 0 {
			t.Fatalf("install %v: exit %d %s", args, r.Code, r.Stderr)
		}
		return r
	}

	lines := warningLines(run().Stderr)
	if len(lines) > 5 {
		t.Errorf("%d warning lines for 20 skills into two runtimes, want at most 5:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		"Cursor does not honour allowed-tools and model: 14 skills: skill-00, skill-01, skill-02, skill-03, skill-04 and 9 more (--verbose lists each)",
		"Cursor does not honour model: 3 skills: skill-14, skill-15, skill-16 (--verbose lists each)",
		"Cursor reads " + filepath.Join(".claude", "skills") + " too",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the warnings do not say %q:\n%s", want, all)
		}
	}

	if verbose := warningLines(run("--verbose").Stderr); len(verbose) != 18 {
		t.Errorf("--verbose: %d warning lines, want 18 (a skill each, and the overlap):\n%s", len(verbose), strings.Join(verbose, "\n"))
	}
	if quiet := run("--quiet"); quiet.Stderr != "" {
		t.Errorf("--quiet printed on stderr:\n%s", quiet.Stderr)
	}

	// The JSON holds every warning's message, a list of strings as
	// before warnings had kinds, for scripts that read them.
	var out struct {
		Warnings []string `json:"warnings"`
	}
	decodeJSON(t, run("--output", "json").Stdout, &out)
	perSkill, overlap := 0, 0
	for _, w := range out.Warnings {
		switch {
		case strings.HasPrefix(w, "skill skill-") && strings.Contains(w, "Cursor does not honour"):
			perSkill++
		case strings.Contains(w, "Cursor reads "+filepath.Join(".claude", "skills")+" too"):
			overlap++
		}
	}
	if perSkill != 17 || overlap != 1 || len(out.Warnings) != 18 {
		t.Errorf("JSON warnings: %d naming a skill, %d overlap, %d in all; want 17, 1 and 18: %q", perSkill, overlap, len(out.Warnings), out.Warnings)
	}
}

// warnings has "warnings": [], as scripts iterate it.
func TestInstallWithoutWarningsListsNone(t *testing.T) {
	t.Parallel()
	useHome(t)
	project := t.TempDir()
	filetest.WriteFile(t, filepath.Join(project, "stax.yaml"), "name: project\nversion: 0.1.0\n")
	writeSkillFiles(t, filepath.Join(project, "skills"), map[string]string{"lint/SKILL.md": skillMD("lint", "Lint.")})
	r := runStax(t, "install", project, "--dir", project, "--no-save", "--output", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"warnings": [],`) {
		t.Errorf("exit %d, want \"warnings\": [] in:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestQuietKeepsTheError: --quiet silences warnings, not the error.
func TestQuietKeepsTheError(t *testing.T) {
	t.Parallel()
	r := runStax(t, "install", "--quiet", "--dir", t.TempDir(), "./missing")
	if r.Code == 0 || !strings.HasPrefix(r.Stderr, "Error: ") {
		t.Errorf("--quiet: exit %d, stderr %q: want the error", r.Code, r.Stderr)
	}
	for _, flag := range []string{"--verbose", "--debug"} {
		if r := runStax(t, "install", "--quiet", flag); r.Code != 1 {
			t.Errorf("--quiet %s: exit %d, want 1 (usage)", flag, r.Code)
		}
	}
}

// TestPackWarningsAreALineAKind packs 8 skills that each draw the same
// three validation warnings: a line a kind (24 lines before), every one
// with --verbose, and every one in the JSON.
func TestPackWarningsAreALineAKind(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := t.TempDir()
	filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: untriggered\nversion: 1.0.0\n")
	for i := range 8 {
		name := fmt.Sprintf("skill-%d", i)
		filetest.WriteFile(t, filepath.Join(dir, "skills", name, "SKILL.md"), "---\nname: "+name+"\ndescription: Does things.\n---\nBody.\n")
		filetest.WriteFile(t, filepath.Join(dir, "skills", name, "references", "a.md"), "a\n")
		filetest.WriteFile(t, filepath.Join(dir, "skills", name, "references", "b.md"), "b\n")
	}
	r := runStax(t, "pack", dir, "-t", "untriggered:1.0.0")
	if r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	lines := warningLines(r.Stderr)
	want := []string{
		"warning: the description does not say when to use the skill [description-no-trigger]: 8 skills: skill-0, skill-1, skill-2, skill-3, skill-4 and 3 more (--verbose lists each)",
		"warning: files under scripts/, references/ or assets/ that SKILL.md never cites [file-not-cited]: 16 in 8 skills: skill-0, skill-1, skill-2, skill-3, skill-4 and 3 more (--verbose lists each)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if verbose := warningLines(runStax(t, "pack", dir, "-t", "untriggered:1.0.0", "--verbose").Stderr); len(verbose) != 24 {
		t.Errorf("--verbose: %d warning lines, want 24", len(verbose))
	}
	var res workflow.PackResult
	decodeJSON(t, runStax(t, "pack", dir, "-t", "untriggered:1.0.0", "--output", "json").Stdout, &res)
	if len(res.Warnings) != 24 {
		t.Errorf("JSON: %d warnings, want 24", len(res.Warnings))
	}
	layout := filepath.Join(t.TempDir(), "layout")
	pushed := runStax(t, "push", dir, "oci:"+layout+":1.0.0", "--output", "json")
	var tr workflow.Transfer
	decodeJSON(t, pushed.Stdout, &tr)
	if len(tr.Warnings) != 24 {
		t.Errorf("push JSON: %d warnings, want 24: %s", len(tr.Warnings), pushed.Stderr)
	}
}

// TestQuietKeepsAVerifyFailure: a verify that fails under --quiet
// --output json still writes the JSON error every command writes, exit 6.
func TestQuietKeepsAVerifyFailure(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, pub := newKeyPair(t, "k")
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", examples, ref); r.Code != 0 {
		t.Fatalf("push: exit %d %s", r.Code, r.Stderr)
	}
	for _, flags := range [][]string{{"--output", "json"}, {"--quiet", "--output", "json"}} {
		r := runStax(t, append(flags, "verify", ref, "--key", pub)...)
		var out map[string]jsonError
		if err := json.Unmarshal([]byte(r.Stderr), &out); r.Code != 6 || err != nil || out["error"].Exit != 6 || out["error"].Message == "" {
			t.Errorf("verify %v of an unsigned package: exit %d, stderr %q (%v); want 6 and the JSON error", flags, r.Code, r.Stderr, err)
		}
	}
}
