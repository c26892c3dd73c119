package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/workflow"
)

// A project-scope install is committed with the project: a clone at
// another path holds the same folder, and installing it there again with
// --frozen must change nothing, neither a byte nor a modification time, so
// that no developer's install shows in git status.
func TestProjectInstallIsPortableAcrossClones(t *testing.T) {
	t.Parallel()
	useHome(t)
	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: deploy\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(pkg, "skills"), map[string]string{
		"deploy-check/SKILL.md":         skillMD("deploy-check", "Run ${STAX_SKILL_DIR}/scripts/check.sh in ${STAX_WORKSPACE}."),
		"deploy-check/scripts/check.sh": "#!/bin/sh\necho ok\n",
		"plain/SKILL.md":                skillMD("plain", "Nothing to substitute."),
	})
	layout := filepath.Join(root, "layout")
	if r := runStax(t, "pack", pkg, "-t", "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	src := "oci:" + layout + ":1.0.0"
	a := filepath.Join(root, "ana", "app")
	if err := os.MkdirAll(a, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "install", src, "--dir", a, "--runtime", "claude-code", "--runtime", "codex"); r.Code != 0 {
		t.Fatalf("install in A: %d %s", r.Code, r.Stderr)
	}
	got, err := os.ReadFile(filepath.Join(a, ".claude", "skills", "deploy-check", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Run .claude/skills/deploy-check/scripts/check.sh in .."; !strings.Contains(string(got), want) {
		t.Errorf("SKILL.md in project scope:\n%s\nwant it to say %q", got, want)
	}

	b := filepath.Join(root, "bo", "elsewhere", "app")
	cloneProject(t, a, b)
	verify := []string{"verify", "--installed", "--dir", b, "--runtime", "claude-code", "--runtime", "codex"}
	if r := runStax(t, verify...); r.Code != 0 || strings.Count(r.Stdout, ": verified") != 2 {
		t.Errorf("verify --installed in the clone: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	before := fileState(t, b)
	if r := runStax(t, "install", src, "--dir", b, "--runtime", "claude-code", "--runtime", "codex", "--frozen"); r.Code != 0 {
		t.Fatalf("install --frozen in the clone: %d %s", r.Code, r.Stderr)
	}
	after := fileState(t, b)
	for p, was := range before {
		if after[p] != was {
			t.Errorf("install --frozen in the clone changed %s", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("install --frozen in the clone added %s", p)
		}
	}
	for _, dir := range []string{".claude/skills", ".agents/skills"} {
		inA, inB := treeState(t, filepath.Join(a, dir)), treeState(t, filepath.Join(b, dir))
		if !mapsEqual(inA, inB) {
			t.Errorf("%s differs between the project and its clone", dir)
		}
	}

	if r := runStax(t, verify...); r.Code != 0 || strings.Count(r.Stdout, ": verified") != 2 {
		t.Errorf("verify --installed after install --frozen: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// git checks files out with the time of the checkout: the clone's
	// files are as committed, their times are not as recorded.
	c := filepath.Join(root, "cy", "app")
	cloneProject(t, a, c)
	checkedOut := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	filepath.Walk(c, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			err = os.Chtimes(p, checkedOut, checkedOut)
		}
		return err
	})
	before = fileState(t, c)
	if r := runStax(t, "install", src, "--dir", c, "--runtime", "claude-code", "--runtime", "codex", "--frozen"); r.Code != 0 {
		t.Fatalf("install --frozen in a checkout: %d %s", r.Code, r.Stderr)
	}
	after = fileState(t, c)
	for p, was := range before {
		if after[p] != was {
			t.Errorf("install --frozen in a checkout changed %s", p)
		}
	}
}

// fileState lists every file under root with its mode, modification time
// and content: what git status would see change.
func fileState(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = fmt.Sprintf("%o %d %s", info.Mode().Perm(), info.ModTime().UnixNano(), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cloneProject copies src to dst as cp -a does: modes and modification times
// kept.
func cloneProject(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(to, info.Mode().Perm())
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		return os.Chtimes(to, info.ModTime(), info.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A user-scope install holds absolute paths: copied to another home, its
// SKILL.md names the old one, and verify --installed reports the skill
// (exit 6) rather than "verified"; install writes it for the new home.
// Not parallel: user scope reads HOME.
func TestVerifyReportsMovedUserScopeInstall(t *testing.T) {
	useHome(t)
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkillFiles(t, src, map[string]string{"deploy-check/SKILL.md": skillMD("deploy-check", "Run ${STAX_SKILL_DIR}/scripts/check.sh.")})
	work, first := filepath.Join(root, "work"), filepath.Join(root, "home")
	for _, dir := range []string{work, first} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", first)
	if r := runStax(t, "install", src, "--dir", work, "--scope", "user"); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	moved := filepath.Join(root, "moved")
	cloneProject(t, first, moved)
	t.Setenv("HOME", moved)
	r := runStax(t, "verify", "--installed", "--dir", work, "--scope", "user")
	if r.Code != 6 || !strings.Contains(r.Stdout, "skill deploy-check: written for another place") {
		t.Fatalf("verify of the moved home: exit %d, want 6 naming the skill\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "install", src, "--dir", work, "--scope", "user"); r.Code != 0 {
		t.Fatalf("install in the moved home: %d %s", r.Code, r.Stderr)
	}
	got, err := os.ReadFile(filepath.Join(moved, ".claude", "skills", "deploy-check", "SKILL.md"))
	if want := filepath.Join(moved, ".claude", "skills", "deploy-check") + "/scripts/check.sh"; err != nil || !strings.Contains(string(got), want) {
		t.Errorf("SKILL.md in the moved home: %v\n%s\nwant it to name %s", err, got, want)
	}
	if r := runStax(t, "verify", "--installed", "--dir", work, "--scope", "user"); r.Code != 0 {
		t.Errorf("verify after install: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// The dry run of an install over a skill written for another place (a
// user-scope install copied to another home) plans to write it again,
// as the install then does, where it planned to keep it as it is.
// Not parallel: user scope reads HOME.
func TestDryRunRewritesASkillOfAnotherPlace(t *testing.T) {
	useHome(t)
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeSkillFiles(t, src, map[string]string{
		"deploy-check/SKILL.md": skillMD("deploy-check", "Run ${STAX_SKILL_DIR}/scripts/check.sh."),
		"plain/SKILL.md":        skillMD("plain", "No paths."),
	})
	work, first := filepath.Join(root, "work"), filepath.Join(root, "home")
	for _, dir := range []string{work, first} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", first)
	args := []string{"install", src, "--dir", work, "--scope", "user", "--no-save"}
	if r := runStax(t, args...); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	moved := filepath.Join(root, "moved")
	cloneProject(t, first, moved)
	t.Setenv("HOME", moved)
	plan := onlyTarget(t, dryRun(t, args...))
	r := runStax(t, append(args, "--output", "json")...)
	var out workflow.InstallResult
	if r.Code == 0 {
		decodeJSON(t, r.Stdout, &out)
	}
	if r.Code != 0 || len(out.Targets) != 1 {
		t.Fatalf("install in the moved home: %d %s", r.Code, r.Stderr)
	}
	did := out.Targets[0]
	if want := []string{"deploy-check"}; !slices.Equal(did.Updated, want) || !slices.Equal(plan.Update, want) {
		t.Errorf("in the moved home the plan updates %v and keeps %v; the install updated %v and left %v: want both to update %v",
			plan.Update, plan.Keep, did.Updated, did.Unchanged, want)
	}
	if want := []string{"plain"}; !slices.Equal(did.Unchanged, want) || !slices.Equal(plan.Keep, want) {
		t.Errorf("in the moved home the plan keeps %v, the install left %v as it was: want %v, whose SKILL.md holds no path", plan.Keep, did.Unchanged, want)
	}
}
