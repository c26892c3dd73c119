package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/workflow"
)

// install, remove, uninstall and update with --dry-run print the plan and
// write nothing: the project's tree and stax's home are byte for byte as
// they were.
func TestDryRunsWriteNothing(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "base"), map[string]string{
		"keep/SKILL.md":   skillMD("keep", "kept"),
		"change/SKILL.md": skillMD("change", "old"),
	})
	writeSkillFiles(t, filepath.Join(proj, "extra"), map[string]string{"extra/SKILL.md": skillMD("extra", "extra")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./base\n    - path: ./extra\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	writeSkillFiles(t, filepath.Join(proj, "base"), map[string]string{
		"change/SKILL.md": skillMD("change", "new"),
		"added/SKILL.md":  skillMD("added", "added"),
	})
	before, homeBefore := treeState(t, proj), treeState(t, home)
	unchanged := func(t *testing.T) {
		t.Helper()
		assertTreeState(t, proj, before)
		assertTreeState(t, home, homeBefore)
	}

	t.Run("install", func(t *testing.T) {
		plan := dryRun(t, "install", "--dir", proj)
		target := onlyTarget(t, plan)
		want := workflow.PlanTarget{Runtimes: []string{"claude-code"}, Dir: filepath.Join(proj, ".claude", "skills"),
			Install: []string{"added"}, Update: []string{"change"}, Remove: []string{}, Keep: []string{"extra", "keep"}, Conflicts: []string{}}
		assertPlanTarget(t, target, want)
		if !plan.LockChanged || plan.Lock != filepath.Join(proj, "stax.lock") {
			t.Errorf("lock %q changed %v, want stax.lock of the project, changed", plan.Lock, plan.LockChanged)
		}
		if !slices.ContainsFunc(plan.Skills, func(s workflow.SkillUpdate) bool { return s.Path == "added" && s.Change == workflow.ChangeAdded }) {
			t.Errorf("lock change %+v does not add skill added", plan.Skills)
		}
		if len(plan.UserFiles) != 0 {
			t.Errorf("user files touched: %v", plan.UserFiles)
		}
		unchanged(t)
	})
	t.Run("install text", func(t *testing.T) {
		r := runStax(t, "install", "--dir", proj, "--dry-run")
		if r.Code != 0 {
			t.Fatalf("%d %s", r.Code, r.Stderr)
		}
		for _, line := range []string{"would install 1, update 1, remove 0, keep 2", "  install added", "  update change", "files of yours touched: none"} {
			if !strings.Contains(r.Stdout, line) {
				t.Errorf("output lacks %q:\n%s", line, r.Stdout)
			}
		}
		unchanged(t)
	})
	t.Run("remove", func(t *testing.T) {
		plan := dryRun(t, "remove", filepath.Join(proj, "extra"), "--dir", proj)
		assertPlanTarget(t, onlyTarget(t, plan), workflow.PlanTarget{Runtimes: []string{"claude-code"}, Dir: filepath.Join(proj, ".claude", "skills"),
			Install: []string{"added"}, Update: []string{"change"}, Remove: []string{"extra"}, Keep: []string{"keep"}, Conflicts: []string{}})
		if plan.Manifest != filepath.Join(proj, "stax.yaml") {
			t.Errorf("manifest %q, want the project's stax.yaml", plan.Manifest)
		}
		unchanged(t)
	})
	t.Run("uninstall", func(t *testing.T) {
		plan := dryRun(t, "uninstall", "--dir", proj, "--keep", "keep")
		assertPlanTarget(t, onlyTarget(t, plan), workflow.PlanTarget{Runtimes: []string{"claude-code"}, Dir: filepath.Join(proj, ".claude", "skills"),
			Install: []string{}, Update: []string{}, Remove: []string{"change", "extra"}, Keep: []string{"keep"}, Conflicts: []string{}})
		if plan.Lock != "" {
			t.Errorf("uninstall would write %s", plan.Lock)
		}
		unchanged(t)
	})
	t.Run("update", func(t *testing.T) {
		if r := runStax(t, "update", "--dir", proj, "--dry-run"); r.Code != 0 {
			t.Fatalf("%d %s", r.Code, r.Stderr)
		}
		unchanged(t)
	})
}

// A skill of the user's in the way, and an installed skill the user
// changed, are conflicts of the plan; with --force they are the files of
// the user's it would touch.
func TestDryRunNamesTheUsersSkills(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"mine/SKILL.md": skillMD("mine", "v1"), "edited/SKILL.md": skillMD("edited", "v1")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	folder := filepath.Join(proj, ".claude", "skills")
	filetest.WriteFile(t, filepath.Join(folder, "edited", "SKILL.md"), skillMD("edited", "changed by the user"))
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"edited/SKILL.md": skillMD("edited", "v2"), "theirs/SKILL.md": skillMD("theirs", "v1")})
	filetest.WriteFile(t, filepath.Join(folder, "theirs", "SKILL.md"), "the user's own\n")
	before := treeState(t, proj)

	plan := dryRun(t, "install", "--dir", proj)
	if got := onlyTarget(t, plan).Conflicts; !slices.Equal(got, []string{"edited", "theirs"}) {
		t.Errorf("conflicts %v, want edited and theirs", got)
	}
	if len(plan.UserFiles) != 0 {
		t.Errorf("without --force the install refuses, touching none; plan says %v", plan.UserFiles)
	}
	plan = dryRun(t, "install", "--dir", proj, "--force")
	if want := []string{filepath.Join(folder, "edited"), filepath.Join(folder, "theirs")}; !slices.Equal(plan.UserFiles, want) {
		t.Errorf("with --force user files %v, want %v", plan.UserFiles, want)
	}
	assertTreeState(t, proj, before)
}

// dryRun runs a command with --dry-run --output json and reads its plan.
func dryRun(t *testing.T, args ...string) workflow.Plan {
	t.Helper()
	r := runStax(t, append(args, "--dry-run", "--output", "json")...)
	if r.Code != 0 {
		t.Fatalf("%v: %d %s", args, r.Code, r.Stderr)
	}
	var plan workflow.Plan
	decodeJSON(t, r.Stdout, &plan)
	return plan
}

func onlyTarget(t *testing.T, plan workflow.Plan) workflow.PlanTarget {
	t.Helper()
	if len(plan.Targets) != 1 {
		t.Fatalf("plan has %d targets, want 1: %+v", len(plan.Targets), plan)
	}
	return plan.Targets[0]
}

func assertPlanTarget(t *testing.T, got, want workflow.PlanTarget) {
	t.Helper()
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"runtimes", got.Runtimes, want.Runtimes}, {"install", got.Install, want.Install}, {"update", got.Update, want.Update},
		{"remove", got.Remove, want.Remove}, {"keep", got.Keep, want.Keep}, {"conflicts", got.Conflicts, want.Conflicts}} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	if got.Dir != want.Dir {
		t.Errorf("dir %s, want %s", got.Dir, want.Dir)
	}
}

// A dry run of an install from a registry, the first and one saving a
// source, writes nothing in the project or stax's home: the packages are
// resolved, not stored.
func TestDryRunFromRegistryWritesNothing(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	l := newLayering(t)
	before, homeBefore := treeState(t, l.project), treeState(t, home)
	plan := dryRun(t, "install", "--dir", l.project)
	if got := onlyTarget(t, plan).Install; !slices.Equal(got, []string{"deploy", "lint", "review-pr", "team-only"}) {
		t.Errorf("would install %v", got)
	}
	assertTreeState(t, l.project, before)
	assertTreeState(t, home, homeBefore)

	if r, _ := l.install(t); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	before, homeBefore = treeState(t, l.project), treeState(t, home)
	// Named last, org wins deploy over the project and review-pr over the
	// team: their files change.
	plan = dryRun(t, "install", l.org, "--dir", l.project)
	target := onlyTarget(t, plan)
	if !slices.Equal(target.Update, []string{"deploy", "review-pr"}) || plan.Manifest != filepath.Join(l.project, "stax.yaml") || !plan.LockChanged {
		t.Errorf("install of org as a source: %+v, manifest %q, lock changed %v", target, plan.Manifest, plan.LockChanged)
	}
	assertTreeState(t, l.project, before)
	assertTreeState(t, home, homeBefore)
}

// The plan says what the install then does: a skill the user edited is a
// conflict, which the install refuses, even when its package has not
// changed (the install would write it again); with --force it is the
// user's file the install moves to a backup. A skill the user deleted is
// written again, an update, not kept.
func TestDryRunAgreesWithTheInstall(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{
		"edited/SKILL.md": skillMD("edited", "v1"), "gone/SKILL.md": skillMD("gone", "v1"), "same/SKILL.md": skillMD("same", "v1"),
	})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	folder := filepath.Join(proj, ".claude", "skills")
	filetest.WriteFile(t, filepath.Join(folder, "edited", "SKILL.md"), skillMD("edited", "changed by the user"))
	if err := os.RemoveAll(filepath.Join(folder, "gone")); err != nil {
		t.Fatal(err)
	}

	plan := dryRun(t, "install", "--dir", proj)
	assertPlanTarget(t, onlyTarget(t, plan), workflow.PlanTarget{Runtimes: []string{"claude-code"}, Dir: folder,
		Install: []string{}, Update: []string{"edited", "gone"}, Remove: []string{}, Keep: []string{"same"}, Conflicts: []string{"edited"}})
	if r := runStax(t, "install", "--dir", proj); r.Code != 5 || !strings.Contains(r.Stderr, "edited: changed SKILL.md") {
		t.Fatalf("install after a plan with a conflict: %d %s, want exit 5 naming the edited skill", r.Code, r.Stderr)
	}
	plan = dryRun(t, "install", "--dir", proj, "--force")
	if want := []string{filepath.Join(folder, "edited")}; !slices.Equal(plan.UserFiles, want) {
		t.Errorf("with --force user files %v, want %v", plan.UserFiles, want)
	}
	r := runStax(t, "install", "--dir", proj, "--force", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("install --force: %d %s", r.Code, r.Stderr)
	}
	var out workflow.InstallResult
	decodeJSON(t, r.Stdout, &out)
	if got := out.Targets[0]; !slices.Equal(got.Updated, []string{"edited", "gone"}) || len(got.Backups) != 1 {
		t.Errorf("install --force updated %v with backups %v, as the plan said: edited and gone, edited backed up", got.Updated, got.Backups)
	}
}

// A skill written again from the same package, because its files were
// not as installed, is said to be restored, not updated from a version to
// the same version.
func TestInstallSaysASkillWasRestored(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"gone/SKILL.md": skillMD("gone", "v1")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	if err := os.RemoveAll(filepath.Join(proj, ".claude", "skills", "gone")); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "install", "--dir", proj)
	if r.Code != 0 || !strings.Contains(r.Stdout, "\n  restored gone: ") || strings.Contains(r.Stdout, "updated gone") {
		t.Errorf("install of a deleted skill: exit %d, want it restored\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// verify --installed of a skill the user changed says how to put it
// right, as the docs do, and the command it gives does: a deleted skill
// is written again by an install, a changed one by install --force.
func TestVerifyInstalledSaysHowToPutItRight(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"edited/SKILL.md": skillMD("edited", "v1"), "gone/SKILL.md": skillMD("gone", "v1")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	folder := filepath.Join(proj, ".claude", "skills")
	for _, c := range []struct {
		change func()
		hint   string
	}{
		{func() { os.RemoveAll(filepath.Join(folder, "gone")) }, "stax install --dir " + proj},
		{func() { filetest.WriteFile(t, filepath.Join(folder, "edited", "SKILL.md"), "changed\n") }, "stax install --force --dir " + proj},
	} {
		c.change()
		r := runStax(t, "verify", "--installed", "--dir", proj)
		if r.Code != 6 || !strings.Contains(r.Stderr, "`"+c.hint+"`") {
			t.Fatalf("verify --installed: exit %d, want 6 and the hint `%s`\n%s%s", r.Code, c.hint, r.Stdout, r.Stderr)
		}
		if h := runStax(t, strings.Fields(c.hint)[1:]...); h.Code != 0 {
			t.Fatalf("the hint %s: exit %d %s", c.hint, h.Code, h.Stderr)
		}
		if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 0 {
			t.Errorf("verify after the hint %s: exit %d\n%s%s", c.hint, r.Code, r.Stdout, r.Stderr)
		}
	}
}

// A skill of the user's in the way of an install is named as one: "it",
// not "them", which the message says of two.
func TestConflictSaysItOfOneSkill(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"mine/SKILL.md": skillMD("mine", "v1"), "ours/SKILL.md": skillMD("ours", "v1")})
	folder := filepath.Join(proj, ".claude", "skills")
	filetest.WriteFile(t, filepath.Join(folder, "mine", "SKILL.md"), "the user's own\n")
	r := runStax(t, "install", filepath.Join(proj, "skills"), "--dir", proj, "--runtime", "claude-code")
	if want := "already holds mine, which stax did not install: rename or remove it, or pass --force to replace it (it is moved to .stax/backup)"; r.Code != 5 || !strings.Contains(r.Stderr, want) {
		t.Errorf("install over one skill of the user's: exit %d, want 5 and %q\n%s", r.Code, want, r.Stderr)
	}
	filetest.WriteFile(t, filepath.Join(folder, "ours", "SKILL.md"), "the user's own too\n")
	r = runStax(t, "install", filepath.Join(proj, "skills"), "--dir", proj, "--runtime", "claude-code")
	if want := "already holds mine, ours, which stax did not install: rename or remove them, or pass --force to replace them (they are moved to .stax/backup)"; r.Code != 5 || !strings.Contains(r.Stderr, want) {
		t.Errorf("install over two skills of the user's: exit %d, want 5 and %q\n%s", r.Code, want, r.Stderr)
	}
}

// A skill whose MEMORY.md alone the user changed is merged by an
// install, but install --force does not merge: it moves the user's copy
// to a backup, and the plan of install --force says so.
func TestDryRunForceNamesAMemoryItReplaces(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{
		"memo/SKILL.md":  "---\nname: memo\ndescription: Remembers. Use when testing.\nversion: 1.0.0\n---\nmemo\n",
		"memo/MEMORY.md": "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-05-20\n---\n" + memoV1,
	})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	memo := filepath.Join(proj, ".claude", "skills", "memo")
	appendFile(t, filepath.Join(memo, "MEMORY.md"), userEntry)

	if plan := dryRun(t, "install", "--dir", proj); len(plan.UserFiles) != 0 || len(onlyTarget(t, plan).Conflicts) != 0 {
		t.Errorf("plan of an install over a MEMORY.md it merges: conflicts %v, user files %v, want none", onlyTarget(t, plan).Conflicts, plan.UserFiles)
	}
	plan := dryRun(t, "install", "--dir", proj, "--force")
	r := runStax(t, "install", "--dir", proj, "--force", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("install --force: %d %s", r.Code, r.Stderr)
	}
	var out workflow.InstallResult
	decodeJSON(t, r.Stdout, &out)
	if got := out.Targets[0].Backups; len(got) != 1 {
		t.Fatalf("install --force over a changed MEMORY.md: backups %v, want memo's", got)
	}
	if want := []string{memo}; !slices.Equal(plan.UserFiles, want) {
		t.Errorf("plan of install --force: user files %v, want %v, which install --force moved to a backup", plan.UserFiles, want)
	}
}

// verify --installed gives no install for a skill stax.lock does not pin
// (one installed with --no-save): stax install removes such a skill, where
// the note said it wrote it again. For a skill the lock pins it still does.
func TestVerifyInstalledGivesNoInstallForAOneOff(t *testing.T) {
	t.Parallel()
	proj, folder := projectWithOneOff(t)
	if err := os.RemoveAll(filepath.Join(folder, "oneoff")); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 6 || strings.Contains(r.Stderr, "`stax install") {
		t.Errorf("verify --installed of a one-off deleted: exit %d, want 6 and no install to run\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if err := os.RemoveAll(filepath.Join(folder, "listed")); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 6 || !strings.Contains(r.Stderr, "`stax install --dir "+proj+"`") {
		t.Errorf("verify --installed of a listed skill deleted: exit %d, want 6 and the install that restores it\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// A skill whose MEMORY.md an update merged with the user's entries holds
// a change of the user's, though its files are as recorded: the install
// that removes it refuses it (exit 5), and the plan says so, where it
// planned the removal with no conflict.
func TestDryRunNamesAMergedMemoryItRemoves(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	skills := filepath.Join(proj, "skills")
	writeMemo := func(version string) {
		writeSkillFiles(t, skills, map[string]string{
			"memo/SKILL.md":  "---\nname: memo\ndescription: Remembers. Use when testing.\nversion: " + version + "\n---\nmemo " + version + "\n",
			"memo/MEMORY.md": "---\nversion: " + version + "\ncontributors: 1\nlastUpdated: 2026-05-20\n---\n" + memoV1,
		})
	}
	writeMemo("1.0.0")
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	appendFile(t, filepath.Join(proj, ".claude", "skills", "memo", "MEMORY.md"), userEntry)
	writeMemo("1.1.0")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 || !strings.Contains(r.Stdout, "merged memo") {
		t.Fatalf("install of 1.1.0 over the user's entry: %d, want it merged\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	for _, args := range [][]string{{"remove", skills}, {"uninstall"}} {
		plan := dryRun(t, append(args, "--dir", proj)...)
		if got := onlyTarget(t, plan).Conflicts; !slices.Equal(got, []string{"memo"}) {
			t.Errorf("plan of %v over a merged MEMORY.md: conflicts %v, want memo", args, got)
		}
	}
	for _, args := range [][]string{{"remove", skills}, {"uninstall"}} {
		if r := runStax(t, append(args, "--dir", proj)...); r.Code != 5 {
			t.Errorf("%v over a merged MEMORY.md: exit %d, want 5 as the plan says\n%s", args, r.Code, r.Stderr)
		}
	}
}

// The install verify --installed gives works, and says what it does to a
// skill stax.lock does not pin: a one-off the user changed (installed
// with --no-save), which that install removes, takes --force, where the
// install given was refused (exit 5); and the note names it.
func TestVerifyInstalledHintWorksBesideAChangedOneOff(t *testing.T) {
	t.Parallel()
	proj, folder := projectWithOneOff(t)
	filetest.WriteFile(t, filepath.Join(folder, "oneoff", "SKILL.md"), "changed\n")
	if err := os.RemoveAll(filepath.Join(folder, "listed")); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "verify", "--installed", "--dir", proj)
	_, hint, _ := strings.Cut(r.Stderr, "`")
	hint, rest, _ := strings.Cut(hint, "`")
	if r.Code != 6 || !strings.HasPrefix(hint, "stax install") || !strings.Contains(rest, "oneoff") {
		t.Fatalf("verify --installed: exit %d, want 6, an install and what it does to oneoff\n%s", r.Code, r.Stderr)
	}
	if h := runStax(t, strings.Fields(hint)[1:]...); h.Code != 0 {
		t.Fatalf("the hint %s: exit %d %s", hint, h.Code, h.Stderr)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 0 {
		t.Errorf("verify after the hint %s: exit %d\n%s%s", hint, r.Code, r.Stdout, r.Stderr)
	}
}

// projectWithOneOff is a project whose stax.yaml lists the skill listed,
// installed, beside the skill oneoff, installed with --no-save, which
// stax.lock does not pin; folder is where they are.
func projectWithOneOff(t *testing.T) (proj, folder string) {
	t.Helper()
	useHome(t)
	proj = t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"listed/SKILL.md": skillMD("listed", "v1")})
	writeSkillFiles(t, filepath.Join(proj, "once"), map[string]string{"oneoff/SKILL.md": skillMD("oneoff", "v1")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "install", "--no-save", filepath.Join(proj, "once"), "--dir", proj); r.Code != 0 {
		t.Fatalf("install --no-save: %d %s", r.Code, r.Stderr)
	}
	return proj, filepath.Join(proj, ".claude", "skills")
}
