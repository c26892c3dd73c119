package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A home directory reached through a symbolic link (/home/ana linking to
// /data/ana) is the directory it leads to: user scope installs there.
func TestUserScopeHomeThroughASymbolicLink(t *testing.T) {
	useHome(t)
	realHome := t.TempDir()
	userHome := filepath.Join(t.TempDir(), "ana")
	if err := os.Symlink(realHome, userHome); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", userHome)
	src := t.TempDir()
	writeSkillFiles(t, src, map[string]string{"mine/SKILL.md": skillMD("mine", "the user's")})
	t.Chdir(t.TempDir())

	if r := runStax(t, "install", "--scope", "user", src); r.Code != 0 {
		t.Fatalf("install into a home reached through a link: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(realHome, ".claude", "skills", "mine", "SKILL.md")); err != nil {
		t.Errorf("not installed into the home the link leads to: %v", err)
	}
	if r := runStax(t, "verify", "--installed", "--scope", "user"); r.Code != 0 {
		t.Errorf("verify --installed: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
}

// A user skills folder that is a symbolic link: a relative one to a
// directory inside the home (a dotfiles checkout there) is installed
// through; an absolute one, or one leading out of the home, is refused
// with exit 2 naming the link, what it points to and the fix, and
// nothing is written on either side of it nor under $STAX_HOME/user;
// verify --installed fails on it (exit 6) the same way.
func TestUserScopeSkillsFolderThatIsASymbolicLink(t *testing.T) {
	src := t.TempDir()
	writeSkillFiles(t, src, map[string]string{"mine/SKILL.md": skillMD("mine", "the user's")})
	// setup makes a home whose .claude/skills links to target, given the
	// home; it returns the home and the directory linked to.
	setup := func(t *testing.T, target func(home string) (link, dir string)) (home, userHome, dir string) {
		home = useHome(t)
		userHome = t.TempDir()
		t.Setenv("HOME", userHome)
		t.Chdir(t.TempDir())
		link, dir := target(userHome)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(userHome, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(link, filepath.Join(userHome, ".claude", "skills")); err != nil {
			t.Fatal(err)
		}
		return home, userHome, dir
	}

	t.Run("relative inside the home", func(t *testing.T) {
		_, _, dotfiles := setup(t, func(h string) (string, string) {
			return filepath.Join("..", "dotfiles", "claude-skills"), filepath.Join(h, "dotfiles", "claude-skills")
		})
		if r := runStax(t, "install", "--scope", "user", src); r.Code != 0 {
			t.Fatalf("install through a relative link inside the home: %d %s", r.Code, r.Stderr)
		}
		if _, err := os.Stat(filepath.Join(dotfiles, "mine", "SKILL.md")); err != nil {
			t.Errorf("not installed where the link leads: %v", err)
		}
		if r := runStax(t, "verify", "--installed", "--scope", "user"); r.Code != 0 {
			t.Errorf("verify --installed: %d %s %s", r.Code, r.Stdout, r.Stderr)
		}
	})

	refused := []struct {
		name   string
		target func(home string) (link, dir string)
		says   string
	}{
		{"absolute inside the home", func(h string) (string, string) {
			d := filepath.Join(h, "dotfiles", "claude-skills")
			return d, d
		}, "absolute path"},
		{"out of the home", func(h string) (string, string) {
			d := filepath.Join(filepath.Dir(h), "elsewhere-"+filepath.Base(h))
			return filepath.Join("..", "..", filepath.Base(d)), d
		}, "outside"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			home, userHome, dir := setup(t, c.target)
			t.Cleanup(func() { os.RemoveAll(dir) })
			folder := filepath.Join(userHome, ".claude", "skills")
			beforeHome, beforeDir := treeState(t, userHome), treeState(t, dir)
			r := runStax(t, "install", "--scope", "user", src)
			if r.Code != 2 || !strings.Contains(r.Stderr, folder+" is a symbolic link to ") || !strings.Contains(r.Stderr, c.says) || !strings.Contains(r.Stderr, "make the folder a directory there, or a relative link") {
				t.Errorf("install: %d %s, want exit 2 naming %s, %q and the fix", r.Code, r.Stderr, folder, c.says)
			}
			assertTreeState(t, userHome, beforeHome)
			assertTreeState(t, dir, beforeDir)
			if _, err := os.Stat(filepath.Join(home, "user")); !os.IsNotExist(err) {
				t.Errorf("a refused install left a directory under $STAX_HOME/user: %v", err)
			}
			r = runStax(t, "verify", "--installed", "--scope", "user")
			if r.Code != 6 || !strings.Contains(r.Stderr, folder+" is a symbolic link to ") || !strings.Contains(r.Stderr, c.says) {
				t.Errorf("verify --installed: %d %s %s, want exit 6 naming the link", r.Code, r.Stdout, r.Stderr)
			}
		})
	}
}
