package workflow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/workflow"
)

func TestInstallLayersPackagesIntoTheProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, proj := t.TempDir(), t.TempDir()
	org := writePackage(t, root, "org", "review", "style")
	team := writePackage(t, root, "team", "review")
	env := homeEnv(t, t.TempDir())

	res, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{org, team}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 2 || len(res.Skills) != 2 || len(res.Overrides) != 1 || len(res.Targets) != 1 {
		t.Fatalf("packages %v, skills %v, overrides %v, targets %v: want 2 packages, 2 skills, 1 override, 1 folder", res.Packages, res.Skills, res.Overrides, res.Targets)
	}
	folder := filepath.Join(proj, ".claude", "skills")
	if got := res.Targets[0]; got.Dir != folder || !slices.Equal(got.Runtimes, []string{"claude-code"}) || len(got.Installed) != 2 {
		t.Errorf("target %+v: want claude-code's folder %s with 2 skills installed", got, folder)
	}
	got, err := os.ReadFile(filepath.Join(folder, "review", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "From team.") {
		t.Errorf("review/SKILL.md = %q: want the team's, which comes later", got)
	}
	if res.Lock != filepath.Join(proj, lock.FileName) || !res.LockChanged {
		t.Errorf("lock %s changed %v: want %s written", res.Lock, res.LockChanged, filepath.Join(proj, lock.FileName))
	}

	// The same install again changes nothing, and a frozen one follows
	// the lock it wrote.
	for _, frozen := range []bool{false, true} {
		again, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{org, team}, Frozen: frozen})
		if err != nil {
			t.Fatalf("frozen %v: %v", frozen, err)
		}
		if again.LockChanged || len(again.Targets[0].Unchanged) != 2 {
			t.Errorf("frozen %v: lock changed %v, target %+v: want nothing changed", frozen, again.LockChanged, again.Targets[0].Result)
		}
	}
}

func TestInstallTakesSourcesFromStaxYAML(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, proj := t.TempDir(), t.TempDir()
	env := homeEnv(t, t.TempDir())

	_, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj)})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "nothing to install") {
		t.Fatalf("err = %v: want nothing to install, an invalid argument", err)
	}

	pkg := writePackage(t, root, "org", "review")
	def := "install:\n  sources: [" + pkg + "]\n  runtimes: [cursor]\n"
	if err := os.WriteFile(filepath.Join(proj, "stax.yaml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: workflow.Folders{ProjectDir: proj}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Sources, []string{pkg}) || len(res.Targets) != 1 || !slices.Equal(res.Targets[0].Runtimes, []string{"cursor"}) {
		t.Fatalf("sources %v, targets %+v: want stax.yaml's source installed for cursor", res.Sources, res.Targets)
	}
	if _, err := os.Stat(filepath.Join(res.Targets[0].Dir, "review", "SKILL.md")); err != nil {
		t.Error(err)
	}
}

// An install under a policy that requires a signature writes nothing
// when the package is not signed by a trusted key, and records who
// signed it in stax.lock when it is.
func TestInstallAppliesTheSignatureCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	signer, pub := newKey(t)
	unsigned := packLayout(t, statefulPackage(t, t.TempDir(), "Unsigned."), nil)
	signed := packLayout(t, statefulPackage(t, t.TempDir(), "Signed."), signer)
	require := workflow.Verification{Mode: "require", Keys: []string{pub}}
	env := homeEnv(t, t.TempDir())

	proj := t.TempDir()
	_, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{unsigned}, Verify: require})
	if errdefs.Of(err) != errdefs.DataLoss {
		t.Fatalf("err = %v: want a verification failure", err)
	}
	if entries, _ := os.ReadDir(proj); len(entries) != 0 {
		t.Fatalf("a refused install wrote %v", entries)
	}

	if _, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{signed}, Verify: require}); err != nil {
		t.Fatal(err)
	}
	l, err := lock.Read(filepath.Join(proj, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Packages) != 1 || l.Packages[0].Verified == nil {
		t.Errorf("stax.lock packages %+v: want the signer recorded", l.Packages)
	}
}

func TestUninstallRemovesOnlyWhatStaxInstalled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, proj := t.TempDir(), t.TempDir()
	env := homeEnv(t, t.TempDir())
	pkg := writePackage(t, root, "org", "review", "style")
	if _, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{pkg}}); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(proj, ".claude", "skills")
	own := writePackage(t, folder, "mine")

	res, err := workflow.Uninstall(ctx, env, workflow.UninstallOptions{Where: claudeCode(proj), Keep: []string{"style"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !slices.Equal(res[0].Removed, []string{"review"}) || !slices.Equal(res[0].Kept, []string{"style"}) {
		t.Fatalf("result %+v: want review removed, style kept", res)
	}
	for _, dir := range []string{own, filepath.Join(folder, "style")} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s is gone: %v", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(folder, "review")); !os.IsNotExist(err) {
		t.Errorf("review is still installed: %v", err)
	}
}

// VerifyInstalled finds a changed file, and with a key from the trust
// policy in the environment's stax home, a MEMORY.md that differs from
// what the package's signature signs.
func TestVerifyInstalledFindsChangedFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	signer, pub := newKey(t)
	home, proj := t.TempDir(), t.TempDir()
	ref := packLayout(t, statefulPackage(t, t.TempDir(), "Signed."), signer)
	var notes bytes.Buffer
	env := homeEnv(t, home)
	env.Warnings = &notes
	if _, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{ref}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("keys: ["+pub+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := workflow.VerifyInstalled(ctx, env, workflow.VerifyInstalledOptions{Where: claudeCode(proj)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified {
		t.Fatalf("a clean install: %+v", res)
	}

	memory := filepath.Join(proj, ".claude", "skills", "notes", "MEMORY.md")
	if err := os.WriteFile(memory, []byte("forged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = workflow.VerifyInstalled(ctx, env, workflow.VerifyInstalledOptions{Where: claudeCode(proj)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verified || len(res.Targets) != 1 || len(res.Targets[0].Drift) != 1 || len(res.Targets[0].Unsigned) != 1 {
		t.Fatalf("result %+v: want MEMORY.md changed since install and unlike what is signed", res)
	}
}

// Admit finds the record of a user-scope folder under $STAX_HOME: a
// stateful skill installed there and changed since is refused under a
// policy that requires its signature, as a project's is.
func TestAdmitChecksUserScopeSkills(t *testing.T) {
	ctx := context.Background()
	signer, pub := newKey(t)
	home, userHome := t.TempDir(), t.TempDir()
	t.Setenv("HOME", userHome)
	ref := packLayout(t, statefulPackage(t, t.TempDir(), "Signed."), signer)
	env := homeEnv(t, home)
	user := workflow.Folders{Runtimes: []string{"claude-code"}, Scope: "user"}
	if _, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: user, Sources: []string{ref}}); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(userHome, ".claude", "skills", "notes")
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("mode: require\nkeys: ["+pub+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := workflow.Admit(ctx, env, skill); err != nil {
		t.Fatalf("the skill as installed: %v", err)
	}
	if err := os.WriteFile(filepath.Join(skill, "MEMORY.md"), []byte("forged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := workflow.Admit(ctx, env, skill); errdefs.Of(err) != errdefs.DataLoss {
		t.Fatalf("err = %v: want the changed MEMORY.md of the user's skill refused", err)
	}
}

// Admit lets a stateful skill whose rule is require be read only as its
// package's signature signs it, reading the package through env.Opener.
func TestAdmitChecksStatefulSkillsAgainstTheirSignature(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	signer, pub := newKey(t)
	home, proj := t.TempDir(), t.TempDir()
	ref := packLayout(t, statefulPackage(t, t.TempDir(), "Signed."), signer)
	env := homeEnv(t, home)
	if _, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{ref}}); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(proj, ".claude", "skills", "notes")
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("mode: require\nkeys: ["+pub+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := workflow.Admit(ctx, env, skill); err != nil {
		t.Fatalf("the skill as installed: %v", err)
	}
	if err := workflow.Admit(ctx, env, ""); err != nil {
		t.Fatalf("a skill read from a package: %v", err)
	}

	if err := os.WriteFile(filepath.Join(skill, "MEMORY.md"), []byte("forged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := workflow.Admit(ctx, env, skill)
	if errdefs.Of(err) != errdefs.DataLoss || !strings.Contains(err.Error(), "refusing the stateful skill notes") || !strings.Contains(err.Error(), "MEMORY.md") {
		t.Fatalf("err = %v: want the changed MEMORY.md refused", err)
	}
	// Under a policy that does not require a signature, it is admitted.
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("mode: warn\nkeys: ["+pub+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := workflow.Admit(ctx, env, skill); err != nil {
		t.Fatalf("under warn: %v", err)
	}
}
