package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// TestInstallIntoADefinedRuntime pins that a runtime stax.yaml defines by
// its folders is installed into and listed like one stax knows, and that
// a definition leading outside the project is refused (exit 1) with the
// file and line.
func TestInstallIntoADefinedRuntime(t *testing.T) {
	t.Parallel()
	setenv(t, "STAX_HOME", t.TempDir())
	proj := t.TempDir()
	filetest.Write(t, proj, map[string]string{
		"stax.yaml":              "name: team\nversion: 1.0.0\ninstall:\n  sources: [.]\n  runtimes:\n    - name: zed-agent\n      project: .zed/skills\n      user: .config/zed/skills\n",
		"skills/review/SKILL.md": "---\nname: review\ndescription: Reviews changes. Use when testing defined runtimes.\n---\nReview.\n",
	})
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(proj, ".zed", "skills", "review", "SKILL.md")); err != nil {
		t.Errorf("not installed into the defined folder: %v", err)
	}
	if r := runStax(t, "list", "--dir", proj, "--runtime", "zed-agent"); r.Code != 0 || !strings.Contains(r.Stdout, "review") {
		t.Errorf("list --runtime zed-agent: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}

	bad := t.TempDir()
	filetest.Write(t, bad, map[string]string{
		"stax.yaml":              "name: team\nversion: 1.0.0\ninstall:\n  sources: [.]\n  runtimes:\n    - {name: zed-agent, project: ../elsewhere, user: .zed/skills}\n",
		"skills/review/SKILL.md": "---\nname: review\ndescription: Reviews changes. Use when testing defined runtimes.\n---\nReview.\n",
	})
	r := runStax(t, "install", "--dir", bad)
	if r.Code != 1 || !strings.Contains(r.Stderr, "stax.yaml") || !strings.Contains(r.Stderr, "line 6") || !strings.Contains(r.Stderr, "path traversal") {
		t.Errorf("install with a folder outside the project: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(bad), "elsewhere")); !os.IsNotExist(err) {
		t.Errorf("wrote outside the project: %v", err)
	}
}

// A runtime install.runtimes names that stax does not know, nor the file
// defines, is refused with stax.yaml's line and the runtime meant, as a
// mistyped key is.
func TestUnknownRuntimeOfStaxYamlHasItsLine(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources: [./skills]\n  runtimes:\n    - cursor\n    - claud-code\n")
	r := runStax(t, "install", "--dir", proj, "--output", "json")
	got := jsonErrorOf(t, r)
	if r.Code != 1 || got.Code != "yaml-invalid" || got.Line != 5 || !strings.Contains(got.Message, `unknown runtime "claud-code" (did you mean claude-code?)`) {
		t.Errorf("install with a mistyped runtime: exit %d, error %+v; want yaml-invalid at line 5 naming claude-code", r.Code, got)
	}
}

// A package's own stax.yaml may name a runtime this stax does not know
// (one of a newer stax): only the project's install section is installed
// from, so installing the package is not refused for it.
func TestPackageNamingAnUnknownRuntimeInstalls(t *testing.T) {
	t.Parallel()
	useHome(t)
	pkg := t.TempDir()
	writeSkillFiles(t, filepath.Join(pkg, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "a")})
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: p\nversion: 1.0.0\ninstall:\n  runtimes: [some-newer-agent]\n")
	if r := runStax(t, "install", pkg, "--dir", t.TempDir(), "--runtime", "claude-code"); r.Code != 0 {
		t.Errorf("install of a package whose stax.yaml names an unknown runtime: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "pack", pkg); r.Code != 0 {
		t.Errorf("pack of it: exit %d %s", r.Code, r.Stderr)
	}
}

// The warning of two runtimes of one install, one reading the other's
// folder, says how to leave the first out; followed as it is written,
// with the runtime taken out of stax.yaml, that runtime finds each skill
// once. Leaving it out of install.runtimes alone, as the warning said
// before, left its folder's copies, which it still read and which
// shadowed the others; and the uninstall it gave, without the --dir of
// an install run from elsewhere, removed the copies of the project stax
// was run in.
func TestOverlapWarningSaysHowToLeaveARuntimeOut(t *testing.T) {
	t.Parallel()
	useHome(t)
	setenv(t, "HOME", t.TempDir())
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "a")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources: [./skills]\n  runtimes: [claude-code, cursor]\n")
	r := runStax(t, "install", "--dir", proj)
	hint := "stax uninstall --runtime cursor --dir " + proj
	if r.Code != 0 || !strings.Contains(r.Stderr, "`"+hint+"`") {
		t.Fatalf("install for claude-code and cursor: exit %d, want the warning to say %q\n%s", r.Code, hint, r.Stderr)
	}
	if h := runStax(t, strings.Fields(hint)[1:]...); h.Code != 0 {
		t.Fatalf("%s: exit %d %s", hint, h.Code, h.Stderr)
	}
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources: [./skills]\n  runtimes: [claude-code]\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install for claude-code: exit %d %s", r.Code, r.Stderr)
	}
	if l := runStax(t, "list", "--runtime", "cursor", "--dir", proj); l.Code != 0 || strings.Contains(l.Stdout, "shadowed") || !strings.Contains(l.Stdout, "\na ") {
		t.Errorf("cursor after the warning was followed: exit %d, want a once\n%s", l.Code, l.Stdout)
	}
}
