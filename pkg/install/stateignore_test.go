package install

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupDirIsIgnoredByGit pins that the .stax directory an install
// creates in a project for its backups holds a .gitignore of "*", so that
// the backups never show in git status nor get committed; and that a
// .stax directory the user made, with a .gitignore of theirs, is left as
// it is.
func TestBackupDirIsIgnoredByGit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// existing is the content of a .gitignore the user made in .stax
		// before the install; empty for none (and no .stax).
		existing string
		want     string
	}{
		{name: "created by stax", want: "*\n"},
		{name: "the user's own", existing: "backup/old\n", want: "backup/old\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			project, locks := t.TempDir(), t.TempDir()
			dir := filepath.Join(project, ".claude", "skills")
			// A skill of the user's with the name of the one installed:
			// --force moves it to a backup.
			if err := os.MkdirAll(filepath.Join(dir, "review"), 0o755); err != nil {
				t.Fatal(err)
			}
			ignore := filepath.Join(project, ".stax", ".gitignore")
			if tc.existing != "" {
				if err := os.MkdirAll(filepath.Dir(ignore), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(ignore, []byte(tc.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Install(context.Background(), []Skill{testSkill(t, "review", "new\n")}, Options{Dir: dir, Root: project, LockDir: locks, Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Backups) != 1 {
				t.Fatalf("backups %v: want the user's review moved aside", res.Backups)
			}
			got, err := os.ReadFile(ignore)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf(".stax/.gitignore = %q, want %q", got, tc.want)
			}
			if tc.existing != "" {
				return
			}
			// What git itself says of the project, where git is installed.
			gitBin, err := exec.LookPath("git")
			if err != nil {
				t.Log("no git: skipping git status")
				return
			}
			if out, err := exec.Command(gitBin, "-C", project, "init", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			out, err := exec.Command(gitBin, "-C", project, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
			if err != nil {
				t.Fatalf("git status: %v %s", err, out)
			}
			if strings.Contains(string(out), " .stax/") {
				t.Errorf("git status shows stax's backups:\n%s", out)
			}
		})
	}
}
