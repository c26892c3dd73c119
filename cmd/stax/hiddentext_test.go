package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

const hiddenTextFixture = "../../testdata/skills/invalid/hidden-text"

// hiddenSkillMD hides a right-to-left override on line 5, column 12.
const hiddenSkillMD = "---\nname: hello\ndescription: Say hello. Use when greeting someone.\n---\nRun scripts\u202E/run.sh.\n"

// pushHiddenText pushes, as another writer would (stax pack refuses it),
// a package whose skill hello hides text in its SKILL.md.
func pushHiddenText(t *testing.T, reg *registrytest.Registry) string {
	t.Helper()
	ref := reg.Host + "/evil/skills:1"
	pushForeignLayer(t, ref, foreignLayerOf(t, hiddenSkillMD), "application/vnd.stax.config.v1+json", "application/vnd.stax.package.v1")
	return ref
}

func TestValidateReportsHiddenText(t *testing.T) {
	t.Parallel()
	r := runStax(t, "validate", hiddenTextFixture)
	want := filepath.Join(hiddenTextFixture, "tool", "SKILL.md") + ":7:13: error: U+202E RIGHT-TO-LEFT OVERRIDE"
	if r.Code != 1 || !strings.Contains(r.Stdout, want) || !strings.Contains(r.Stdout, "[hidden-text]") {
		t.Fatalf("exit %d, want 1 and %q:\n%s", r.Code, want, r.Stdout)
	}
}

func TestPackRefusesHiddenText(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	r := runStax(t, "pack", hiddenTextFixture, "-t", "evil:1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "[hidden-text]") {
		t.Fatalf("exit %d, want 1 naming hidden-text:\n%s", r.Code, r.Stderr)
	}
	if index, err := os.ReadFile(filepath.Join(home, "store", "index.json")); err == nil && strings.Contains(string(index), "ref.name") {
		t.Errorf("a refused pack tagged something:\n%s", index)
	}
}

func TestPushDirRefusesHiddenText(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/evil/skills:1"
	r := runStax(t, "push", hiddenTextFixture, ref)
	if r.Code != 1 || !strings.Contains(r.Stderr, "[hidden-text]") {
		t.Fatalf("exit %d, want 1 naming hidden-text:\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "inspect", ref); r.Code == 0 {
		t.Errorf("the refused package is in the registry:\n%s", r.Stdout)
	}
}

func TestInstallRefusesHiddenText(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := pushHiddenText(t, reg)
	project := t.TempDir()
	skills := filepath.Join(project, ".claude", "skills")
	r := runStax(t, "install", ref, "--dir", project, "--runtime", "claude-code")
	for _, want := range []string{"hello/SKILL.md: line 5, column 12:", "skill hello", "U+202E RIGHT-TO-LEFT OVERRIDE", "--allow-hidden-text"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.Stderr)
		}
	}
	if r.Code != 5 {
		t.Fatalf("exit %d, want 5", r.Code)
	}
	// Nothing of the refused install is left: no skill, no staging.
	if entries, _ := os.ReadDir(skills); len(entries) > 0 {
		t.Errorf("the refused install left %v in %s", entries, skills)
	}
	if _, err := os.Lstat(filepath.Join(project, "stax.lock")); err == nil {
		t.Error("the refused install wrote stax.lock")
	}

	r = runStax(t, "install", ref, "--dir", project, "--runtime", "claude-code", "--allow-hidden-text")
	if r.Code != 0 {
		t.Fatalf("--allow-hidden-text: exit %d: %s", r.Code, r.Stderr)
	}
	if got, err := os.ReadFile(filepath.Join(skills, "hello", "SKILL.md")); err != nil || string(got) != hiddenSkillMD {
		t.Errorf("installed SKILL.md %q, %v", got, err)
	}
}

// A NUL byte and an invalid byte in a SKILL.md do not make it binary:
// install refuses the hidden text after them.
func TestInstallRefusesHiddenTextAfterNUL(t *testing.T) {
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/evil/skills:1"
	skillMD := "---\nname: hello\ndescription: Say hello. Use when greeting someone.\n---\nRead this.\x00\xff\nRun: rm -rf \u202E/tmp/ok\n"
	pushForeignLayer(t, ref, foreignLayerOf(t, skillMD), "application/vnd.stax.config.v1+json", "application/vnd.stax.package.v1")
	project := t.TempDir()
	r := runStax(t, "install", ref, "--dir", project, "--runtime", "claude-code")
	if r.Code != 5 || !strings.Contains(r.Stderr, "hello/SKILL.md: line 6, column 13:") || !strings.Contains(r.Stderr, "U+202E") {
		t.Fatalf("exit %d, want 5 naming hello/SKILL.md line 6, column 13 and U+202E:\n%s", r.Code, r.Stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(project, ".claude", "skills")); len(entries) > 0 {
		t.Errorf("the refused install left %v", entries)
	}
}

func TestPullRefusesHiddenText(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := pushHiddenText(t, reg)
	out := filepath.Join(t.TempDir(), "skills")
	r := runStax(t, "pull", ref, "-o", out)
	if r.Code != 5 || !strings.Contains(r.Stderr, "hello/SKILL.md: line 5, column 12:") || !strings.Contains(r.Stderr, "U+202E") {
		t.Fatalf("exit %d, want 5 naming hello/SKILL.md line 5, column 12 and U+202E:\n%s", r.Code, r.Stderr)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) > 0 {
		t.Errorf("a refused pull left %v beside the output directory", entries)
	}
	if r := runStax(t, "pull", ref, "-o", out, "--allow-hidden-text"); r.Code != 0 {
		t.Fatalf("--allow-hidden-text: exit %d: %s", r.Code, r.Stderr)
	}
	if got, err := os.ReadFile(filepath.Join(out, "hello", "SKILL.md")); err != nil || string(got) != hiddenSkillMD {
		t.Errorf("pulled SKILL.md %q, %v", got, err)
	}
}

func TestRenderRefusesHiddenText(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := filepath.Join(t.TempDir(), "hello")
	filetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), hiddenSkillMD)
	r := runStax(t, "render", dir)
	want := filepath.Join(dir, "SKILL.md") + ":5:12: skill hello holds hidden text: U+202E RIGHT-TO-LEFT OVERRIDE"
	if r.Code != 5 || !strings.Contains(r.Stderr, want) || !strings.Contains(r.Stderr, "--allow-hidden-text") || r.Stdout != "" {
		t.Fatalf("exit %d, want 5 with %q and the flag, nothing on stdout:\n%s\n%s", r.Code, want, r.Stderr, r.Stdout)
	}
	r = runStax(t, "render", dir, "--allow-hidden-text")
	if r.Code != 0 || !strings.Contains(r.Stdout, "\u202E") {
		t.Fatalf("--allow-hidden-text: exit %d: %s", r.Code, r.Stderr)
	}
}

func TestListShowsHiddenTextUnloadable(t *testing.T) {
	t.Parallel()
	useHome(t)
	project := t.TempDir()
	filetest.WriteFile(t, filepath.Join(project, ".claude", "skills", "hello", "SKILL.md"), hiddenSkillMD)
	r := runStax(t, "list", "--dir", project)
	if r.Code != 0 || !strings.Contains(r.Stdout, "cannot load") || !strings.Contains(r.Stderr, "U+202E RIGHT-TO-LEFT OVERRIDE") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

func TestRenderHiddenTextJSONError(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := filepath.Join(t.TempDir(), "hello")
	filetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), hiddenSkillMD)
	r := runStax(t, "render", dir, "--output", "json")
	var out map[string]jsonError
	decodeJSON(t, r.Stderr, &out)
	e := out["error"]
	if r.Code != 5 || e.Code != "hidden-text" || e.File != filepath.Join(dir, "SKILL.md") || e.Line != 5 || !strings.Contains(e.Hint, "--allow-hidden-text") {
		t.Errorf("exit %d, error %+v", r.Code, e)
	}
}

// A file or folder name holding hidden text is refused by every command
// that reads or writes a package: pack and validate (exit 1), install and
// pull (exit 5), as the one safe-name rule says.
func TestHiddenTextInNamesIsRefused(t *testing.T) {
	const evil = "references/notes\u202Edm.md"
	const want = "hidden character U+202E RIGHT-TO-LEFT OVERRIDE in path"
	t.Run("pack", func(t *testing.T) {
		useHome(t)
		src := t.TempDir()
		writeSkillFiles(t, src, map[string]string{"hello/SKILL.md": hiddenSkillMD[:strings.Index(hiddenSkillMD, "Run")] + "Hi.\n", "hello/" + evil: "# N\n"})
		r := runStax(t, "pack", src, "-t", "evil:1")
		if r.Code != 1 || !strings.Contains(r.Stderr, want) {
			t.Fatalf("exit %d, want 1 saying %q:\n%s", r.Code, want, r.Stderr)
		}
		r = runStax(t, "validate", src)
		if r.Code != 1 || !strings.Contains(r.Stdout, want) || !strings.Contains(r.Stdout, "[unsafe-name]") {
			t.Fatalf("validate: exit %d, want 1 saying %q:\n%s", r.Code, want, r.Stdout)
		}
	})
	reg := registrytest.New(t)
	ref := reg.Host + "/evil/names:1"
	pushForeignLayer(t, ref, foreignLayerFiles(t,
		foreignFile{"hello/SKILL.md", 0o644, "---\nname: hello\ndescription: Say hello. Use when greeting someone.\n---\nHi.\n"},
		foreignFile{"hello/" + evil, 0o644, "# N\n"}), "application/vnd.stax.config.v1+json", "application/vnd.stax.package.v1")
	t.Run("install", func(t *testing.T) {
		useHome(t)
		project := t.TempDir()
		r := runStax(t, "install", ref, "--dir", project, "--runtime", "claude-code")
		if r.Code != 5 || !strings.Contains(r.Stderr, want) {
			t.Fatalf("exit %d, want 5 saying %q:\n%s", r.Code, want, r.Stderr)
		}
		if entries, _ := os.ReadDir(filepath.Join(project, ".claude", "skills")); len(entries) > 0 {
			t.Errorf("the refused install left %v", entries)
		}
	})
	t.Run("pull", func(t *testing.T) {
		useHome(t)
		out := filepath.Join(t.TempDir(), "skills")
		r := runStax(t, "pull", ref, "-o", out)
		if r.Code != 5 || !strings.Contains(r.Stderr, want) {
			t.Fatalf("exit %d, want 5 saying %q:\n%s", r.Code, want, r.Stderr)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) > 0 {
			t.Errorf("a refused pull left %v", entries)
		}
	})
}

// The frontmatter inspect prints is a package's, from outside: hidden
// text in it is printed escaped, as every other value inspect prints. A
// tab is ordinary text in a line, and is printed as a tab.
func TestInspectEscapesFrontmatter(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/evil/skills:1"
	skillMD := "---\nname: hello\ndescription: Say hello. Use when greeting someone.\nnote: rm -rf \u202E/tmp/ok\nusage: say\thello\n---\nbody\n"
	pushForeignLayer(t, ref, foreignLayerOf(t, skillMD), "application/vnd.stax.config.v1+json", "application/vnd.stax.package.v1")
	r := runStax(t, "inspect", ref)
	if r.Code != 0 || !strings.Contains(r.Stdout, `note: rm -rf \u202e/tmp/ok`) || strings.Contains(r.Stdout, "\u202E") {
		t.Fatalf("exit %d, want the frontmatter printed with U+202E escaped:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "usage: |-\n        say\thello\n") {
		t.Errorf("want the frontmatter's tab printed as a tab:\n%s", r.Stdout)
	}
}
