package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

func testSkill(t *testing.T, name, body string) Skill {
	t.Helper()
	src := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return Skill{Path: name, Source: src, Package: "test", Digest: digest.Digest("sha256:" + strings.Repeat("a", 64))}
}

// A second install into a folder waits for the first's lock; here the
// first never lets go, so the second gives up when its context ends, and
// has changed nothing.
func TestInstallsIntoOneFolderAreSerialized(t *testing.T) {
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	unlock, _, err := lockFolder(context.Background(), locks, dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = Install(ctx, []Skill{testSkill(t, "a", "a\n")}, Options{Dir: dir, LockDir: locks})
	if err == nil || !strings.Contains(err.Error(), "another stax install") {
		t.Fatalf("install while locked: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Error("a blocked install created the folder")
	}
	unlock()
	res, err := Install(context.Background(), []Skill{testSkill(t, "a", "a\n")}, Options{Dir: dir, LockDir: locks})
	if err != nil || len(res.Installed) != 1 {
		t.Fatalf("install after unlock: %v %+v", err, res)
	}
}

// An install into several folders locks them in the order of their
// paths, whatever order it is given them in: two installs given two
// folders in opposite orders would otherwise each hold one while they
// wait for the other. With b's lock held elsewhere, an install into b
// and a has taken a's lock, and done under it what it does first in a
// folder (remove what a killed run left there), by the time it stops at
// b's; taking them in the order given, it stops at b holding nothing.
func TestFoldersLockedInPathOrder(t *testing.T) {
	root, locks := t.TempDir(), t.TempDir()
	a, b := filepath.Join(root, "a", "skills"), filepath.Join(root, "b", "skills")
	leftover := filepath.Join(a, layers.StagingPrefix+"killed")
	for _, d := range []string{leftover, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	unlockB, _, err := lockFolder(context.Background(), locks, b)
	if err != nil {
		t.Fatal(err)
	}
	defer unlockB()
	// A free lock is taken all the same; with its context ended, the
	// install gives up at the first lock held rather than wait for it.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = InstallAll(ctx, []string{b, a}, []Skill{testSkill(t, "keep", "v1\n")}, Options{Root: root, LockDir: locks})
	if err == nil || !strings.Contains(err.Error(), "another stax install into "+b) {
		t.Fatalf("install with b locked: %v, want it stopped at b's lock", err)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the install stopped at b's lock before it took a's (%s is left): it locks in the order given", leftover)
	}
}

func TestInstallSubstitutesPathsOnly(t *testing.T) {
	dir, locks := t.TempDir(), t.TempDir()
	s := testSkill(t, "vars", "dir=${STAX_SKILL_DIR} ws=${STAX_WORKSPACE} esc=\\${STAX_SKILL_DIR} args=$ARGUMENTS $ARGUMENTS[0] \\$ARGUMENTS\n")
	if _, err := Install(context.Background(), []Skill{s}, Options{Dir: dir, LockDir: locks, Workspace: "/work/space"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "vars", "SKILL.md"))
	want := "dir=" + filepath.Join(dir, "vars") + " ws=/work/space esc=${STAX_SKILL_DIR} args=$ARGUMENTS $ARGUMENTS[0] \\$ARGUMENTS\n"
	if string(got) != want {
		t.Errorf("SKILL.md:\n got %q\nwant %q", got, want)
	}
}

func TestConflictIsMaterializationError(t *testing.T) {
	dir, locks := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Install(context.Background(), []Skill{testSkill(t, "mine", "x\n")}, Options{Dir: dir, LockDir: locks})
	var conflict *ConflictError
	if !errors.As(err, &conflict) || errdefs.Of(err) != errdefs.FailedPrecondition || conflict.Skills[0] != "mine" {
		t.Fatalf("err = %v", err)
	}
}

// listTree renders every file under root with its content.
func listTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s: %s\n", rel, data)
		return nil
	})
	return b.String()
}

// A failed install into a folder that is not there yet leaves the project
// as it was: neither the folder nor the runtime's directory above it
// (.claude for .claude/skills) is left behind, empty.
func TestFailedInstallLeavesNoFolders(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, ".claude", "skills")
	broken := testSkill(t, "broken", "x\n")
	broken.Source = filepath.Join(t.TempDir(), "gone")
	_, err := Install(context.Background(), []Skill{testSkill(t, "fine", "y\n"), broken}, Options{Dir: dir, Root: root, LockDir: t.TempDir()})
	if err == nil {
		t.Fatal("an install of a skill whose files are gone succeeded")
	}
	if entries, _ := os.ReadDir(root); len(entries) > 0 {
		t.Errorf("a failed install left %v in the project", entries)
	}
}
