package install

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const pathsBody = "dir=${STAX_SKILL_DIR} ws=${STAX_WORKSPACE}\n"

// placeSkills are two skills from the package directory pkg (built from
// a directory: no signature is checked): vars uses both path variables,
// plain none, only an escaped one, which stays as written wherever it is.
func placeSkills(t *testing.T, pkg string) []Skill {
	vars := testSkill(t, "vars", pathsBody)
	plain := testSkill(t, "plain", "see \\${STAX_SKILL_DIR} with $ARGUMENTS\n")
	vars.Package, plain.Package = pkg, pkg
	return []Skill{plain, vars}
}

// installedAt installs placeSkills into root/.claude/skills with no
// workspace, as user scope does, and returns the folder.
func installedAt(t *testing.T, pkg, root string, portable bool) string {
	t.Helper()
	dir := filepath.Join(root, ".claude", "skills")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := Options{Dir: dir, Root: root, LockDir: t.TempDir(), Portable: portable}
	if _, err := Install(context.Background(), placeSkills(t, pkg), opts); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A portable install writes the paths relative to its root, with slashes
// on every system, so the folder holds the same bytes wherever the project
// is; a clone installs as unchanged and verifies.
func TestPortableInstallWritesPathsRelativeToRoot(t *testing.T) {
	t.Parallel()
	a, pkg := filepath.Join(t.TempDir(), "a"), t.TempDir()
	installedAt(t, pkg, a, true)
	got, err := os.ReadFile(filepath.Join(a, ".claude", "skills", "vars", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "dir=.claude/skills/vars ws=.\n"; string(got) != want {
		t.Errorf("SKILL.md: got %q, want %q", got, want)
	}

	b := filepath.Join(t.TempDir(), "elsewhere", "b")
	if err := os.CopyFS(b, os.DirFS(a)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(b, ".claude", "skills")
	drift, _, err := Verify(context.Background(), dir, VerifyOptions{Root: b, Portable: true, LockDir: t.TempDir()})
	if err != nil || len(drift) > 0 {
		t.Errorf("verify of the clone: %+v %v", drift, err)
	}
	again, err := Install(context.Background(), placeSkills(t, pkg), Options{Dir: dir, Root: b, Workspace: b, LockDir: t.TempDir(), Portable: true})
	if err != nil || !slices.Equal(again.Unchanged, []string{"plain", "vars"}) {
		t.Errorf("install in the clone: %+v %v, want both unchanged", again, err)
	}
}

// A user-scope install holds absolute paths. Moved to another home, its
// SKILL.md still names the old one: verify reports it, rather than
// "verified", and says which skill. A skill whose SKILL.md names no path
// is the same bytes anywhere: it is neither reported nor written again.
func TestVerifyReportsInstallWrittenForAnotherPlace(t *testing.T) {
	t.Parallel()
	home, pkg := filepath.Join(t.TempDir(), "home"), t.TempDir()
	dir := installedAt(t, pkg, home, false)
	drift, _, err := Verify(context.Background(), dir, VerifyOptions{Root: home, LockDir: t.TempDir()})
	if err != nil || len(drift) > 0 {
		t.Fatalf("verify where installed: %+v %v", drift, err)
	}

	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.CopyFS(moved, os.DirFS(home)); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(moved, ".claude", "skills")
	drift, _, err = Verify(context.Background(), dir, VerifyOptions{Root: moved, LockDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(drift) != 1 {
		t.Fatalf("verify of a moved install: %+v, want the skill reported", drift)
	}
	if d := drift[0]; d.Skill != "vars" || !d.Relocated {
		t.Errorf("drift %+v, want vars relocated", d)
	}

	again, err := Install(context.Background(), placeSkills(t, pkg), Options{Dir: dir, Root: moved, LockDir: t.TempDir()})
	if err != nil || !slices.Equal(again.Updated, []string{"vars"}) || !slices.Equal(again.Unchanged, []string{"plain"}) {
		t.Fatalf("install in the moved home: %+v %v, want vars updated, plain unchanged", again, err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "vars", "SKILL.md"))
	if want := "dir=" + filepath.Join(dir, "vars") + " ws=${STAX_WORKSPACE}\n"; err != nil || string(got) != want {
		t.Errorf("SKILL.md in the moved home: %q %v, want %q", got, err, want)
	}
	drift, _, err = Verify(context.Background(), dir, VerifyOptions{Root: moved, LockDir: t.TempDir()})
	if err != nil || len(drift) > 0 {
		t.Errorf("verify after installing in the moved home: %+v %v", drift, err)
	}
}
