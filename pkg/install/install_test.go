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
