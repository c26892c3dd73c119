package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// A user-scope install run inside a project takes neither the project's
// runtimes nor its stax.lock: the project's files stay byte for byte, the
// working directory gains nothing, and the user's install has a lock of
// its own that --frozen follows.
func TestUserScopeInstallLeavesProjectAlone(t *testing.T) {
	home := useHome(t)
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	src := t.TempDir()
	writeSkillFiles(t, src, map[string]string{"mine/SKILL.md": skillMD("mine", "the user's")})
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"team/SKILL.md": skillMD("team", "the team's")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  runtimes: [cursor]\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("project install: %d %s", r.Code, r.Stderr)
	}
	before := treeState(t, proj)
	t.Chdir(proj)

	if r := runStax(t, "install", src, "--scope", "user"); r.Code != 0 {
		t.Fatalf("user install: %d %s", r.Code, r.Stderr)
	}
	// The default runtime (claude-code), not the project's cursor.
	if _, err := os.Stat(filepath.Join(userHome, ".claude", "skills", "mine", "SKILL.md")); err != nil {
		t.Errorf("not installed into the user's claude-code folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(userHome, ".cursor", "skills", "mine")); !os.IsNotExist(err) {
		t.Errorf("installed into the project's runtime cursor: %v", err)
	}
	assertTreeState(t, proj, before)
	userLock := filepath.Join(home, "user", "claude-skills", "stax.lock")
	if _, err := os.Stat(userLock); err != nil {
		t.Errorf("the user's lock: %v", err)
	}

	if r := runStax(t, "install", "--scope", "user", "--frozen"); r.Code != 0 {
		t.Errorf("user install --frozen: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "verify", "--installed", "--scope", "user"); r.Code != 0 {
		t.Errorf("verify --installed --scope user against the user's lock: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "update", "--scope", "user", "--dry-run"); r.Code != 0 {
		t.Errorf("update --scope user --dry-run: %d %s", r.Code, r.Stderr)
	}
	assertTreeState(t, proj, before)
	saved, err := os.ReadFile(filepath.Join(home, "user", "claude-skills", "stax.yaml"))
	if err != nil || !strings.Contains(string(saved), "- "+src+"\n") {
		t.Errorf("the user's stax.yaml does not list %s by its absolute path: %v\n%s", src, err, saved)
	}
	if r := runStax(t, "uninstall", "--scope", "user"); r.Code != 0 {
		t.Errorf("user uninstall: %d %s", r.Code, r.Stderr)
	}
	assertTreeState(t, proj, before)
	if r := runStax(t, "install", "--frozen"); r.Code != 0 {
		t.Errorf("project install --frozen after the user's: %d %s", r.Code, r.Stderr)
	}
	assertTreeState(t, proj, before)
}

// Run from a directory that is no project, a user-scope install writes
// nothing there, and its runtimes come from the user's settings.
func TestUserScopeInstallWritesNothingInWorkingDirectory(t *testing.T) {
	home := useHome(t)
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	filetest.WriteFile(t, filepath.Join(home, "config.yaml"), "install:\n  runtimes: [cursor]\n")
	src := t.TempDir()
	writeSkillFiles(t, src, map[string]string{"mine/SKILL.md": skillMD("mine", "the user's")})
	wd := t.TempDir()
	t.Chdir(wd)

	if r := runStax(t, "install", src, "--scope", "user", "--dry-run"); r.Code != 0 {
		t.Fatalf("user install --dry-run: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "user")); !os.IsNotExist(err) {
		t.Errorf("a dry run created the user-scope directory: %v", err)
	}
	if r := runStax(t, "install", src, "--scope", "user"); r.Code != 0 {
		t.Fatalf("user install: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(userHome, ".cursor", "skills", "mine", "SKILL.md")); err != nil {
		t.Errorf("not installed into the runtime of the user's settings: %v", err)
	}
	if r := runStax(t, "uninstall", "--scope", "user"); r.Code != 0 {
		t.Errorf("user uninstall: %d %s", r.Code, r.Stderr)
	}
	assertTreeState(t, wd, map[string]string{"./": "dir"})
}

// assertTreeState fails the test, naming each path, when root is not as
// treeState listed it.
func assertTreeState(t *testing.T, root string, want map[string]string) {
	t.Helper()
	got := treeState(t, root)
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: %s is gone", root, p)
		} else if g != w {
			t.Errorf("%s: %s changed", root, p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s was written", root, p)
		}
	}
}

// A runtime the user's settings define by its folders is one user-scope
// commands can name, and one the settings can pick by default.
func TestUserScopeInstallIntoARuntimeOfTheUserSettings(t *testing.T) {
	home := useHome(t)
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	filetest.WriteFile(t, filepath.Join(home, "config.yaml"),
		"install:\n  runtimes:\n    - name: zed-agent\n      project: .zed/skills\n      user: .config/zed/skills\n")
	src := t.TempDir()
	writeSkillFiles(t, src, map[string]string{"mine/SKILL.md": skillMD("mine", "the user's")})
	t.Chdir(t.TempDir())

	if r := runStax(t, "install", "--scope", "user", "--runtime", "zed-agent", "--no-save", src); r.Code != 0 {
		t.Fatalf("install --runtime zed-agent: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(userHome, ".config", "zed", "skills", "mine", "SKILL.md")); err != nil {
		t.Errorf("not installed into the user folder of the defined runtime: %v", err)
	}
	if r := runStax(t, "uninstall", "--scope", "user", "--runtime", "zed-agent"); r.Code != 0 {
		t.Fatalf("uninstall --runtime zed-agent: %d %s", r.Code, r.Stderr)
	}
	// Without --runtime, the settings' own list names it.
	if r := runStax(t, "install", "--scope", "user", src); r.Code != 0 {
		t.Fatalf("install with the settings' runtimes: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(userHome, ".config", "zed", "skills", "mine", "SKILL.md")); err != nil {
		t.Errorf("not installed into the runtime the settings list: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "user", "config-zed-skills", "stax.lock")); err != nil {
		t.Errorf("the lock of the defined runtime's folder: %v", err)
	}

	// A definition breaking the rules is refused, naming the settings.
	filetest.WriteFile(t, filepath.Join(home, "config.yaml"),
		"install:\n  runtimes:\n    - {name: zed-agent, project: .zed/skills, user: ../elsewhere}\n")
	r := runStax(t, "install", "--scope", "user", "--runtime", "zed-agent", "--no-save", src)
	if r.Code != 1 || !strings.Contains(r.Stderr, "config.yaml") || !strings.Contains(r.Stderr, "path traversal") {
		t.Errorf("a definition leading out of the home directory: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(userHome), "elsewhere")); !os.IsNotExist(err) {
		t.Errorf("wrote outside the home directory: %v", err)
	}
}

// A user folder written ~/FOLDER, as a shell takes it, is FOLDER in the
// home directory, not a directory named ~; ~ anywhere else is refused.
func TestUserFolderFromTheHomeDirectory(t *testing.T) {
	home := useHome(t)
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	filetest.WriteFile(t, filepath.Join(home, "config.yaml"),
		"install:\n  runtimes:\n    - {name: zed-agent, project: .zed/skills, user: ~/.config/zed/skills}\n")
	src := t.TempDir()
	writeSkillFiles(t, src, map[string]string{"mine/SKILL.md": skillMD("mine", "the user's")})
	t.Chdir(t.TempDir())

	if r := runStax(t, "install", "--scope", "user", "--runtime", "zed-agent", "--no-save", src); r.Code != 0 {
		t.Fatalf("install --runtime zed-agent: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(userHome, ".config", "zed", "skills", "mine", "SKILL.md")); err != nil {
		t.Errorf("not installed into ~/.config/zed/skills: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(userHome, "~")); !os.IsNotExist(err) {
		t.Errorf("a directory named ~ was made in the home directory: %v", err)
	}

	for _, user := range []string{"'~'", "~root/skills"} {
		filetest.WriteFile(t, filepath.Join(home, "config.yaml"),
			"install:\n  runtimes:\n    - {name: zed-agent, project: .zed/skills, user: "+user+"}\n")
		r := runStax(t, "install", "--scope", "user", "--runtime", "zed-agent", "--no-save", src)
		if r.Code != 1 || !strings.Contains(r.Stderr, "config.yaml") || !strings.Contains(r.Stderr, "~ is not expanded there") {
			t.Errorf("user folder %s: exit %d, want 1 saying ~ is not expanded\n%s", user, r.Code, r.Stderr)
		}
	}
	if _, err := os.Lstat(filepath.Join(userHome, "~")); !os.IsNotExist(err) {
		t.Errorf("a directory named ~ was made in the home directory: %v", err)
	}
}

// propose --scope user finds the skill in the folders of the user's
// settings, as install put it there.
func TestUserScopeProposeReadsTheUsersSettings(t *testing.T) {
	home := useHome(t)
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	filetest.WriteFile(t, filepath.Join(home, "config.yaml"), "install:\n  runtimes: [cursor]\n")
	layout := filepath.Join(t.TempDir(), "layout")
	ref := "oci:" + layout + ":1.0.0"
	if r := runStax(t, "push", copyExamples(t), ref); r.Code != 0 {
		t.Fatalf("push: %d %s", r.Code, r.Stderr)
	}
	t.Chdir(t.TempDir())
	if r := runStax(t, "install", ref, "--scope", "user", "--oci-layout", layout); r.Code != 0 {
		t.Fatalf("install --scope user: %d %s", r.Code, r.Stderr)
	}
	addMemoryEntry(t, filepath.Join(userHome, ".cursor", "skills", "incident-postmortem"), learned)
	out := filepath.Join(t.TempDir(), "proposal.json")
	if r := runStax(t, "propose", "incident-postmortem", "--scope", "user", "--oci-layout", layout, "-o", out); r.Code != 0 {
		t.Fatalf("propose --scope user: %d %s", r.Code, r.Stderr)
	}
	if !strings.Contains(readText(t, out), "@ana, 2026-11-20") {
		t.Errorf("the proposal lacks the entry:\n%s", readText(t, out))
	}
}

// A layout a user-scope install names by a relative path is saved in the
// user's stax.yaml by its absolute path, as a package directory is: that
// file lives under $STAX_HOME, apart from where stax ran.
func TestUserScopeLayoutIsSavedAbsolute(t *testing.T) {
	home := useHome(t)
	t.Setenv("HOME", t.TempDir())
	work := t.TempDir()
	packLayout(t, filepath.Join(work, "lay"), "mine")
	t.Chdir(work)
	if r := runStax(t, "install", "oci:./lay:1.0.0", "--scope", "user"); r.Code != 0 {
		t.Fatalf("user install: %d %s", r.Code, r.Stderr)
	}
	want := "oci:" + filepath.Join(work, "lay") + ":1.0.0"
	saved, err := os.ReadFile(filepath.Join(home, "user", "claude-skills", "stax.yaml"))
	if err != nil || !strings.Contains(string(saved), want) {
		t.Errorf("the user's stax.yaml does not list %s: %v\n%s", want, err, saved)
	}
}
