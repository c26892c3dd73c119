package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/lock"
)

// installedAlpha is the version of the alpha skill installed in proj.
func installedAlpha(t *testing.T, proj string) string {
	t.Helper()
	got := readFile(t, filepath.Join(proj, ".claude/skills/alpha/SKILL.md"))
	_, version, _ := strings.Cut(got, "This is alpha ")
	return strings.TrimSuffix(version, ".\n")
}

// A plain stax install keeps the version stax.lock holds while the range
// of stax.yaml allows it, as npm keeps package-lock.json's: 1.1.0 being
// published does not move a source locked at 1.0.0 with ^1.0.0, and
// after stax update moved it, a rollback of stax.lock (git checkout
// stax.lock, then an install) stays rolled back. A range that no longer
// allows the locked version resolves again.
func TestInstallKeepsTheLockedVersionWhileTheRangeAllowsIt(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, repo, digests := publishedProject(t, reg)
	before := projectFiles(t, proj)
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	checkUnchanged(t, "an install with 1.1.0 published", proj, before)

	update := func() {
		t.Helper()
		if r := runStax(t, "update", "--dir", proj); r.Code != 0 {
			t.Fatalf("update: exit %d\n%s", r.Code, r.Stderr)
		}
		if got := installedAlpha(t, proj); got != "1.1.0" {
			t.Fatalf("update installed alpha %s, want 1.1.0", got)
		}
	}
	// The rollback: the lock as committed before the update (git checkout
	// stax.lock), then an install, --frozen or not.
	rollBack := func(args ...string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(proj, lock.FileName), []byte(before[lock.FileName]), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := runStax(t, append([]string{"install", "--dir", proj}, args...)...); r.Code != 0 {
			t.Fatalf("install %v of the rolled back lock: exit %d\n%s", args, r.Code, r.Stderr)
		}
		checkUnchanged(t, fmt.Sprintf("install %v of the rolled back lock", args), proj, before)
	}
	update()
	rollBack()
	update()
	rollBack("--frozen")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install after the rollback: exit %d\n%s", r.Code, r.Stderr)
	}
	checkUnchanged(t, "an install after a rollback", proj, before)

	// A range the locked 1.0.0 is outside of is a changed declaration.
	yaml := filepath.Join(proj, "stax.yaml")
	if err := os.WriteFile(yaml, []byte(strings.Replace(before["stax.yaml"], "^1.0.0", "^1.1.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install of ^1.1.0: exit %d\n%s", r.Code, r.Stderr)
	}
	if p := lockedPackage(t, proj, repo); p.Version != "1.1.0" || string(p.Digest) != digests["1.1.0"] || p.Range != "^1.1.0" {
		t.Errorf("locked %+v after the range moved to ^1.1.0, want 1.1.0 at %s", p, digests["1.1.0"])
	}
	if got := installedAlpha(t, proj); got != "1.1.0" {
		t.Errorf("installed alpha %s after the range moved to ^1.1.0, want 1.1.0", got)
	}

	// A range rewritten that still allows the locked 1.1.0 keeps it, though
	// it allows 2.0.0 too; the lock records the new range.
	if err := os.WriteFile(yaml, []byte(strings.Replace(before["stax.yaml"], "^1.0.0", ">=1.0.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install of >=1.0.0: exit %d\n%s", r.Code, r.Stderr)
	}
	if p := lockedPackage(t, proj, repo); p.Version != "1.1.0" || string(p.Digest) != digests["1.1.0"] || p.Range != ">=1.0.0" {
		t.Errorf("locked %+v after the range became >=1.0.0, want 1.1.0 at %s in >=1.0.0", p, digests["1.1.0"])
	}
}

// install --no-save REF is a one-off beside the project's sources: REF is
// installed with every source stax.lock pins, at its locked version, and
// neither stax.yaml nor stax.lock changes.
func TestInstallNoSaveKeepsTheOtherSources(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, _, _ := publishedProject(t, reg)
	beta := reg.Host + "/acme/beta:1.0.0"
	pushSkillVersion(t, beta, "beta", "1.0.0")
	before := projectFiles(t, proj)
	if r := runStax(t, "install", beta, "--no-save", "--dir", proj); r.Code != 0 {
		t.Fatalf("install --no-save: exit %d\n%s", r.Code, r.Stderr)
	}
	checkUnchanged(t, "install --no-save", proj, before)
	if got := readFile(t, filepath.Join(proj, ".claude/skills/beta/SKILL.md")); !strings.Contains(got, "beta 1.0.0") {
		t.Errorf("install --no-save did not install beta:\n%s", got)
	}
}

// stax update SOURCE --to VERSION moves one source to a version, lower or
// higher: in its range the range stays and stax.lock keeps the version on
// the installs that follow; out of it the range becomes ^VERSION, as
// --latest moves one; a source naming a tag names the version's tag. A
// version with no tag is exit 4 and changes nothing; --to without one
// SOURCE is exit 1.
func TestUpdateToMovesOneSourceToAVersion(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, repo, digests := publishedProject(t, reg)
	yaml := filepath.Join(proj, "stax.yaml")
	original := readFile(t, yaml)
	to := func(version, wantRange string) {
		t.Helper()
		was := lockedPackage(t, proj, repo)
		r := runStax(t, "update", repo, "--to", version, "--dir", proj)
		if r.Code != 0 {
			t.Fatalf("update --to %s: exit %d\n%s", version, r.Code, r.Stderr)
		}
		if plan := repo + " " + was.Version + " → " + version + " ("; !strings.Contains(r.Stdout, plan) {
			t.Errorf("update --to %s printed no plan %q:\n%s", version, plan, r.Stdout)
		}
		if moved := repo + " range " + was.Range + " → " + wantRange; was.Range != wantRange && !strings.Contains(r.Stdout, moved) {
			t.Errorf("update --to %s does not say %q:\n%s", version, moved, r.Stdout)
		}
		if got := installedAlpha(t, proj); got != version {
			t.Errorf("update --to %s installed alpha %s", version, got)
		}
		if p := lockedPackage(t, proj, repo); p.Version != version || string(p.Digest) != digests[version] || p.Range != wantRange {
			t.Errorf("update --to %s locked %+v, want range %s, digest %s", version, p, wantRange, digests[version])
		}
		if got, want := readFile(t, yaml), strings.Replace(original, "^1.0.0", wantRange, 1); got != want {
			t.Errorf("stax.yaml after update --to %s:\n%s\nwant\n%s", version, got, want)
		}
	}
	to("1.1.0", "^1.0.0")
	to("1.0.0", "^1.0.0")
	before := projectFiles(t, proj)
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	checkUnchanged(t, "an install after update --to 1.0.0", proj, before)
	to("2.0.0", "^2.0.0")
	to("1.0.0", "^1.0.0")

	before = projectFiles(t, proj)
	if r := runStax(t, "update", repo, "--to", "3.0.0", "--dir", proj); r.Code != 4 || !strings.Contains(r.Stderr, "no tag of "+repo+" is the version 3.0.0") {
		t.Errorf("update --to a version with no tag: exit %d, want 4\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "update", "--to", "1.1.0", "--dir", proj); r.Code != 1 || !strings.Contains(r.Stderr, "moves one source") {
		t.Errorf("update --to without a source: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
	checkUnchanged(t, "a refused update --to", proj, before)

	// A source naming a tag names the tag of the version.
	tagged := strings.Replace(original, "{ref: "+repo+", version: \"^1.0.0\"}", repo+":1.1.0", 1)
	if err := os.WriteFile(yaml, []byte(tagged), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "update", repo, "--to", "2.0.0", "--dir", proj); r.Code != 0 {
		t.Fatalf("update --to of a tagged source: exit %d\n%s", r.Code, r.Stderr)
	}
	if got, want := readFile(t, yaml), strings.Replace(tagged, repo+":1.1.0", repo+":2.0.0", 1); got != want {
		t.Errorf("stax.yaml after update --to of a tagged source:\n%s\nwant\n%s", got, want)
	}
	if got := installedAlpha(t, proj); got != "2.0.0" {
		t.Errorf("update --to 2.0.0 of a tagged source installed alpha %s", got)
	}
}

// An update of one source leaves the others at what stax.lock holds only
// while stax.yaml still allows it, as a plain install does: after alpha's
// range became ^2.0.0, `stax update beta` moves alpha too, and the lock it
// writes never names a version out of its range.
func TestUpdateOfOneSourceMovesAnotherOutOfItsRange(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, repo, _ := publishedProject(t, reg)
	beta := reg.Host + "/acme/beta"
	pushSkillVersion(t, beta+":1.0.0", "beta", "1.0.0")
	if r := runStax(t, "add", beta, "--version", "^1.0.0", "--dir", proj); r.Code != 0 {
		t.Fatalf("add beta: exit %d\n%s", r.Code, r.Stderr)
	}
	pushSkillVersion(t, beta+":1.1.0", "beta", "1.1.0")
	yaml := filepath.Join(proj, "stax.yaml")
	edited := strings.Replace(readFile(t, yaml), `"^1.0.0"}`, `"^2.0.0"}`, 1)
	if !strings.Contains(edited, `"^2.0.0"`) {
		t.Fatalf("stax.yaml has no alpha range to edit:\n%s", readFile(t, yaml))
	}
	if err := os.WriteFile(yaml, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "update", beta, "--dir", proj); r.Code != 0 {
		t.Fatalf("update beta: exit %d\n%s", r.Code, r.Stderr)
	}
	if p, got := lockedPackage(t, proj, repo), installedAlpha(t, proj); p.Version != "2.0.0" || got != "2.0.0" {
		t.Errorf("after alpha's range became ^2.0.0, update beta left alpha %s installed and locked at %s (range %q)", got, p.Version, p.Range)
	}
	if r := runStax(t, "install", "--frozen", "--dir", proj); r.Code != 0 {
		t.Errorf("install --frozen after the update: exit %d\n%s", r.Code, r.Stderr)
	}
}

// A version stax.lock pins that the publisher withdrew stops a plain
// install, which keeps the lock, with a message that names stax.lock and
// the command that moves on; running that command resolves it.
func TestWithdrawnLockedVersionNamesTheUpdate(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, repo, digests := publishedProject(t, reg)
	if err := crane.Delete(repo+"@"+digests["1.0.0"], crane.Insecure); err != nil {
		t.Fatal(err)
	}
	useHome(t) // a fresh machine: no store holds 1.0.0
	r := runStax(t, "install", "--dir", proj)
	hint := "stax update " + repo
	if r.Code == 0 || !strings.Contains(r.Stderr, "stax.lock pins") || !strings.Contains(r.Stderr, hint) {
		t.Fatalf("install of a lock whose version was withdrawn: exit %d\n%s\nwant it to name stax.lock and %q", r.Code, r.Stderr, hint)
	}
	if u := runStax(t, "update", repo, "--dir", proj); u.Code != 0 {
		t.Fatalf("%s: exit %d\n%s", hint, u.Code, u.Stderr)
	}
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Errorf("install after the update: exit %d\n%s", r.Code, r.Stderr)
	}
}

// Run from inside the project with the default --dir ".", an install
// still says it saved install.sources and changed stax.lock: the journal
// names the files by absolute paths, the result by the caller's own.
// Not parallel: it changes the working directory.
func TestInstallFromInsideTheProjectSaysWhatItWrote(t *testing.T) {
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/alpha"
	pushSkillVersion(t, repo+":1.0.0", "alpha", "1.0.0")
	t.Chdir(t.TempDir())
	r := runStax(t, "add", repo, "--version", "^1.0.0", "--runtime", "claude-code", "--output", "json")
	var out struct {
		LockChanged bool   `json:"lockChanged"`
		Saved       string `json:"saved"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); r.Code != 0 || err != nil || !out.LockChanged || out.Saved == "" {
		t.Errorf("add from inside the project: exit %d, %+v (%v), want lockChanged and saved\n%s%s", r.Code, out, err, r.Stdout, r.Stderr)
	}
}

// --no-save names what to install once; given without a SOURCE it would
// install the project's sources as a plain install does, saving what it
// says it does not, so it is refused before anything is done.
func TestNoSaveWithoutASourceIsRefused(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, _, _ := publishedProject(t, reg)
	r := runStax(t, "install", "--no-save", "--dir", proj)
	if r.Code != 1 || !strings.Contains(r.Stderr, "--no-save installs the SOURCEs named") {
		t.Errorf("install --no-save with no SOURCE: exit %d, want 1 naming the flag\n%s", r.Code, r.Stderr)
	}
}
