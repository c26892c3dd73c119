package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/workflow"
)

// publishedProject is a project that added reg's acme/alpha at 1.0.0
// with the range ^1.0.0, after which 1.1.0 (pushed by stax) and 2.0.0
// (copied in by crane) were published. It returns the project, the
// repository and the digest of each version.
func publishedProject(t *testing.T, reg *registrytest.Registry) (proj, repo string, digests map[string]string) {
	t.Helper()
	repo = reg.Host + "/acme/alpha"
	digests = map[string]string{"1.0.0": pushSkillVersion(t, repo+":1.0.0", "alpha", "1.0.0").Digest}
	proj = t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	digests["1.1.0"] = pushSkillVersion(t, repo+":1.1.0", "alpha", "1.1.0").Digest
	staging := reg.Host + "/acme/staging:2.0.0"
	digests["2.0.0"] = pushSkillVersion(t, staging, "alpha", "2.0.0").Digest
	if err := crane.Copy(staging, repo+":2.0.0", crane.Insecure); err != nil {
		t.Fatalf("crane copy: %v", err)
	}
	return proj, repo, digests
}

// projectFiles reads the files an update may change.
func projectFiles(t *testing.T, proj string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, f := range []string{"stax.yaml", lock.FileName, ".claude/skills/alpha/SKILL.md"} {
		files[f] = readFile(t, filepath.Join(proj, f))
	}
	return files
}

func checkUnchanged(t *testing.T, what, proj string, before map[string]string) {
	t.Helper()
	for f, was := range projectFiles(t, proj) {
		if was != before[f] {
			t.Errorf("%s changed %s:\n%s", what, f, was)
		}
	}
}

func lockedPackage(t *testing.T, proj, ref string) lock.Package {
	t.Helper()
	l, err := lock.Read(filepath.Join(proj, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Packages {
		if p.Ref == ref {
			return p
		}
	}
	t.Fatalf("stax.lock has no package %s: %+v", ref, l.Packages)
	return lock.Package{}
}

// stax outdated shows, for a source locked at 1.0.0 with the range
// ^1.0.0, the highest version the range allows (1.1.0) and the highest
// published (2.0.0); --exit-code exits 1 when something is outdated, and
// without it the exit is 0.
func TestOutdatedShowsWantedAndLatest(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, repo, _ := publishedProject(t, reg)

	r := runStax(t, "outdated", "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("outdated: exit %d, want 0 without --exit-code\n%s", r.Code, r.Stderr)
	}
	fields := []string{repo, "^1.0.0", "1.0.0", "1.1.0", "2.0.0"}
	var row string
	for _, line := range strings.Split(r.Stdout, "\n") {
		if strings.HasPrefix(line, repo) {
			row = line
		}
	}
	if got := strings.Fields(row); strings.Join(got, " ") != strings.Join(fields, " ") {
		t.Errorf("outdated row %q, want %q\n%s", row, fields, r.Stdout)
	}

	r = runStax(t, "outdated", "--dir", proj, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("outdated --output json: exit %d\n%s", r.Code, r.Stderr)
	}
	var out workflow.OutdatedResult
	decodeJSON(t, r.Stdout, &out)
	if len(out.Packages) != 1 {
		t.Fatalf("outdated lists %d packages, want 1: %+v", len(out.Packages), out.Packages)
	}
	p := out.Packages[0]
	if p.Ref != repo || p.Range != "^1.0.0" || p.Locked != "1.0.0" || p.Wanted != "1.1.0" || p.Latest != "2.0.0" || !p.Outdated {
		t.Errorf("outdated %+v, want %s ^1.0.0 locked 1.0.0 wanted 1.1.0 latest 2.0.0, outdated", p, repo)
	}

	if r := runStax(t, "outdated", "--dir", proj, "--exit-code"); r.Code != 1 {
		t.Errorf("outdated --exit-code with an update published: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
}

// stax update --dry-run prints the plan and changes nothing; update moves
// to the highest version in range and rewrites stax.lock; --latest moves
// the range to the latest version and installs it; then there is nothing
// to update, and it says so.
func TestUpdateWithinTheRangeThenLatest(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, repo, digests := publishedProject(t, reg)
	before := projectFiles(t, proj)

	r := runStax(t, "update", "--dry-run", "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("update --dry-run: exit %d\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stdout, repo+" 1.0.0 → 1.1.0") || !strings.Contains(r.Stdout, "changed alpha") {
		t.Errorf("update --dry-run does not show the plan:\n%s", r.Stdout)
	}
	checkUnchanged(t, "update --dry-run", proj, before)

	r = runStax(t, "update", "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("update: exit %d\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stdout, repo+" 1.0.0 → 1.1.0") {
		t.Errorf("update does not show the plan:\n%s", r.Stdout)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/alpha/SKILL.md")); !strings.Contains(got, "alpha 1.1.0") {
		t.Errorf("update did not install 1.1.0:\n%s", got)
	}
	if p := lockedPackage(t, proj, repo); p.Version != "1.1.0" || p.Range != "^1.0.0" || string(p.Digest) != digests["1.1.0"] {
		t.Errorf("locked %+v after update, want 1.1.0 in ^1.0.0 at %s", p, digests["1.1.0"])
	}
	if got := readFile(t, filepath.Join(proj, "stax.yaml")); got != before["stax.yaml"] {
		t.Errorf("update without --latest rewrote stax.yaml:\n%s", got)
	}

	r = runStax(t, "update", "--latest", "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("update --latest: exit %d\n%s", r.Code, r.Stderr)
	}
	if got, want := readFile(t, filepath.Join(proj, "stax.yaml")), strings.Replace(before["stax.yaml"], "^1.0.0", "^2.0.0", 1); got != want {
		t.Errorf("stax.yaml after update --latest:\n%s\nwant\n%s", got, want)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/alpha/SKILL.md")); !strings.Contains(got, "alpha 2.0.0") {
		t.Errorf("update --latest did not install 2.0.0:\n%s", got)
	}
	if p := lockedPackage(t, proj, repo); p.Version != "2.0.0" || p.Range != "^2.0.0" || string(p.Digest) != digests["2.0.0"] {
		t.Errorf("locked %+v after update --latest, want 2.0.0 in ^2.0.0 at %s", p, digests["2.0.0"])
	}

	after := projectFiles(t, proj)
	r = runStax(t, "update", "--dir", proj)
	if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, "nothing to update") {
		t.Errorf("a second update: exit %d, want 0 saying nothing to update\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	checkUnchanged(t, "a second update", proj, after)
	if r := runStax(t, "outdated", "--dir", proj, "--exit-code"); r.Code != 0 {
		t.Errorf("outdated --exit-code when up to date: exit %d, want 0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// A registry that refuses to list the tags fails outdated and update
// with exit 3 naming the repository; a source not listed fails update
// with exit 1; a stax.yaml update --latest cannot write fails with exit 2
// before anything is installed. None changes a file.
func TestOutdatedAndUpdateFailuresChangeNothing(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, repo, _ := publishedProject(t, reg)
	before := projectFiles(t, proj)

	r := runStax(t, "update", reg.Host+"/acme/other", "--dir", proj)
	if r.Code != 1 || !strings.Contains(r.Stderr, "acme/other is not in install.sources") {
		t.Errorf("update of a source not listed: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
	checkUnchanged(t, "update of a source not listed", proj, before)

	yaml := filepath.Join(proj, "stax.yaml")
	if err := os.Chmod(yaml, 0o444); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		r = runStax(t, "update", "--latest", "--dir", proj)
		if r.Code != 2 || !strings.Contains(r.Stderr, yaml+" cannot be written") {
			t.Errorf("update --latest of a read-only stax.yaml: exit %d, want 2\n%s", r.Code, r.Stderr)
		}
		checkUnchanged(t, "update --latest of a read-only stax.yaml", proj, before)
	}

	reg.AddFaults(registrytest.Fail("GET", "^/v2/acme/alpha/tags/list$", http.StatusForbidden).Times(-1))
	for _, args := range [][]string{{"outdated"}, {"update"}, {"update", "--latest", "--dry-run"}} {
		r := runStax(t, append(args, "--dir", proj)...)
		if r.Code != 3 || !strings.Contains(r.Stderr, strings.TrimPrefix(repo, reg.Host+"/")) {
			t.Errorf("%v with tags refused: exit %d, want 3 naming the repository\n%s", args, r.Code, r.Stderr)
		}
		checkUnchanged(t, strings.Join(args, " ")+" with tags refused", proj, before)
	}
}

// stax outdated asks every repository at once by default (the gate
// answers only when both tag lists are in flight; --timeout fails a run
// that never gets there), and --concurrency bounds how many.
func TestOutdatedConcurrencyFlag(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj := t.TempDir()
	for _, name := range []string{"alpha", "beta"} {
		repo := reg.Host + "/acme/" + name
		pushSkillVersion(t, repo+":1.0.0", name, "1.0.0")
		if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
			t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
		}
	}
	both := registrytest.Gate(http.MethodGet, `/tags/list$`, 2)
	reg.AddFaults(both)
	if r := runStax(t, "outdated", "--dir", proj, "--timeout", "30s"); r.Code != 0 {
		t.Fatalf("outdated: exit %d (the registry answers once both repositories are asked at once)\n%s", r.Code, r.Stderr)
	}
	one := registrytest.Gate(http.MethodGet, `/tags/list$`, 1)
	reg.AddFaults(one)
	both.Times(0)
	if r := runStax(t, "outdated", "--dir", proj, "--concurrency", "1"); r.Code != 0 {
		t.Fatalf("outdated --concurrency 1: exit %d\n%s", r.Code, r.Stderr)
	}
	if one.Hits() != 2 || one.MaxInFlight() != 1 {
		t.Errorf("outdated --concurrency 1 listed %d repositories, %d at once; want 2, one at a time", one.Hits(), one.MaxInFlight())
	}
}

// A source named by its repository's last name, as npm names a package
// (stax remove tools), is not in install.sources as written: remove and
// update name the source meant and the sources listed, and the source
// named in the message, given to the same command, does it.
func TestRemoveAndUpdateNameTheSourceMeant(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	tools, org := reg.Host+"/acme/tools", reg.Host+"/acme/org-skills"
	pushSkillVersion(t, tools+":1.0.0", "tools", "1.0.0")
	pushSkillVersion(t, org+":2.0.0", "org", "2.0.0")
	proj := t.TempDir()
	if r := runStax(t, "add", tools+":1.0.0", org+":2.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d %s", r.Code, r.Stderr)
	}
	for _, command := range []string{"update", "remove"} {
		r := runStax(t, command, "tools", "--dir", proj)
		want := "did you mean " + tools + "?"
		if r.Code != 1 || !strings.Contains(r.Stderr, want) || !strings.Contains(r.Stderr, org+":2.0.0") {
			t.Fatalf("%s tools: exit %d, want 1 with %q and the sources listed\n%s", command, r.Code, want, r.Stderr)
		}
		if h := runStax(t, command, tools, "--dir", proj); h.Code != 0 {
			t.Errorf("%s %s, as the message says: exit %d %s", command, tools, h.Code, h.Stderr)
		}
	}
}

// A source named without a registry host is a repository of the local
// store, as install takes it (stax pack -t writes one): tags and
// outdated list the store's tags for it, where they asked Docker Hub for
// docker.io/library/NAME.
func TestLocalStoreSourceIsListedFromTheStore(t *testing.T) {
	t.Parallel()
	useHome(t)
	pack := func(version string) { packTeamSkills(t, version) }
	pack("1.0.0")
	proj := t.TempDir()
	if r := runStax(t, "install", "team-skills", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install team-skills: exit %d %s", r.Code, r.Stderr)
	}
	pack("1.1.0")
	if r := runStax(t, "tags", "team-skills"); r.Code != 0 || r.Stdout != "1.1.0\n1.0.0\n" {
		t.Errorf("tags team-skills: exit %d, want the store's 1.1.0 and 1.0.0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r := runStax(t, "outdated", "--dir", proj, "--output", "json")
	var out workflow.OutdatedResult
	if r.Code == 0 {
		decodeJSON(t, r.Stdout, &out)
	}
	if r.Code != 0 || len(out.Packages) != 1 || out.Packages[0].Locked != "1.0.0" || out.Packages[0].Wanted != "1.1.0" {
		t.Errorf("outdated: exit %d, %+v; want team-skills locked 1.0.0, wanted 1.1.0\n%s", r.Code, out.Packages, r.Stderr)
	}
	// update --latest moves a range by the store's tags too.
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources: [{ref: team-skills, version: \"^1.0.0\"}]\n  runtimes: [claude-code]\n")
	pack("2.0.0")
	if r := runStax(t, "update", "--latest", "--dry-run", "--dir", proj); r.Code != 0 || !strings.Contains(r.Stdout, "^2.0.0") {
		t.Errorf("update --latest --dry-run: exit %d, want the range moved to ^2.0.0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// sign and verify take a name without a registry host as the local
// store's, as install does, not as docker.io/library/NAME.
func TestSignAndVerifyALocalStoreName(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := t.TempDir()
	writeSkillFiles(t, filepath.Join(dir, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "a")})
	filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: team-skills\nversion: 1.0.0\n")
	if r := runStax(t, "pack", dir); r.Code != 0 {
		t.Fatalf("pack: exit %d %s", r.Code, r.Stderr)
	}
	priv, pub := newKeyPair(t, "local")
	if r := runStax(t, "sign", "team-skills:1.0.0", "--key", priv); r.Code != 0 {
		t.Fatalf("sign team-skills:1.0.0: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "verify", "team-skills:1.0.0", "--key", pub); r.Code != 0 {
		t.Errorf("verify team-skills:1.0.0: exit %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// remove of a source where stax.yaml lists none says that it lists none,
// where the message read "which lists " and stopped.
func TestRemoveWhereNoSourceIsListed(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "name: pkg\nversion: 1.0.0\n")
	r := runStax(t, "remove", "tools", "--dir", proj)
	if want := "is not in install.sources of " + filepath.Join(proj, "stax.yaml") + ", which lists none\n"; r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("remove where no source is listed: exit %d, want 1 and %q\n%s", r.Code, want, r.Stderr)
	}
}

// The source remove names as the one meant, when it is a directory, is
// written as the command line takes it, relative to where stax runs, not
// as stax.yaml lists it, relative to the project: given to the same
// command with --dir, it does it.
func TestRemoveNamesADirectoryAsTheCommandLineTakesIt(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"review/SKILL.md": skillMD("review", "r")})
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources:\n    - path: ./skills\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	r := runStax(t, "remove", "skils", "--dir", proj)
	meant := filepath.Join(proj, "skills")
	if want := "did you mean " + meant + "?"; r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Fatalf("remove skils: exit %d, want 1 and %q\n%s", r.Code, want, r.Stderr)
	}
	if h := runStax(t, "remove", meant, "--dir", proj); h.Code != 0 {
		t.Errorf("remove %s, as the message says: exit %d %s", meant, h.Code, h.Stderr)
	}
}

// packTeamSkills packs team-skills at version into the local store, as
// stax pack -t team-skills:VERSION writes it.
func packTeamSkills(t *testing.T, version string) {
	t.Helper()
	dir := t.TempDir()
	writeSkillFiles(t, filepath.Join(dir, "skills"), map[string]string{"a/SKILL.md": skillMD("a", version)})
	filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: team-skills\nversion: "+version+"\n")
	if r := runStax(t, "pack", dir, "-t", "team-skills:"+version); r.Code != 0 {
		t.Fatalf("pack %s: exit %d %s", version, r.Code, r.Stderr)
	}
}

// A range on a source of the local store chooses among the store's tags,
// as on a registry's: add --version ^1.0.0 took the store's highest tag,
// 2.0.0, and locked it under the range, and update moved past the range
// too.
func TestLocalStoreSourceKeepsItsRange(t *testing.T) {
	t.Parallel()
	useHome(t)
	packTeamSkills(t, "1.0.0")
	packTeamSkills(t, "2.0.0")
	proj := t.TempDir()
	if r := runStax(t, "add", "team-skills", "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add team-skills --version ^1.0.0: exit %d %s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/a/SKILL.md")); got != skillMD("a", "1.0.0") {
		t.Errorf("add --version ^1.0.0 installed, want 1.0.0:\n%s", got)
	}
	packTeamSkills(t, "1.1.0")
	if r := runStax(t, "update", "--dir", proj); r.Code != 0 {
		t.Fatalf("update: exit %d %s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/a/SKILL.md")); got != skillMD("a", "1.1.0") {
		t.Errorf("update in ^1.0.0 installed, want 1.1.0:\n%s", got)
	}
}

// update --to moves a source of the local store by the store's tags, as
// update --latest does, where it asked Docker Hub for
// docker.io/library/team-skills (exit 3).
func TestUpdateToOfLocalStoreSource(t *testing.T) {
	t.Parallel()
	useHome(t)
	packTeamSkills(t, "1.0.0")
	proj := t.TempDir()
	if r := runStax(t, "add", "team-skills:1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add team-skills:1.0.0: exit %d %s", r.Code, r.Stderr)
	}
	packTeamSkills(t, "1.1.0")
	if r := runStax(t, "update", "team-skills", "--to", "1.1.0", "--dir", proj); r.Code != 0 {
		t.Fatalf("update team-skills --to 1.1.0: exit %d %s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/a/SKILL.md")); got != skillMD("a", "1.1.0") {
		t.Errorf("update --to 1.1.0 installed, want 1.1.0:\n%s", got)
	}
}

// A source of the local store not listed is named as written, without
// the docker.io/library/ of Docker Hub, which a name without a registry
// host is not: remove team-skill said "docker.io/library/team-skill is
// not in install.sources …: did you mean docker.io/library/team-skills?".
func TestRemoveNamesALocalStoreSourceAsWritten(t *testing.T) {
	t.Parallel()
	useHome(t)
	packTeamSkills(t, "1.0.0")
	proj := t.TempDir()
	if r := runStax(t, "add", "team-skills", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add team-skills: exit %d %s", r.Code, r.Stderr)
	}
	for _, command := range []string{"update", "remove"} {
		r := runStax(t, command, "team-skill", "--dir", proj)
		want := "team-skill is not in install.sources"
		if r.Code != 1 || !strings.HasPrefix(r.Stderr, "Error: "+want) || !strings.Contains(r.Stderr, "did you mean team-skills?") || strings.Contains(r.Stderr, "docker.io") {
			t.Errorf("%s team-skill: exit %d, want 1 saying %q and did you mean team-skills?, without docker.io\n%s", command, r.Code, want, r.Stderr)
		}
	}
}

// tags of a name without a registry host the local store has no packages
// of says where it looked, the name meant when it is a typo of one the
// store holds, and how Docker Hub's is written: a user who meant Docker
// Hub's was told only that it "has no tags".
func TestTagsOfANameTheStoreLacksSaysWhereItLooked(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := t.TempDir()
	writeSkillFiles(t, filepath.Join(dir, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "a")})
	filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: team-skills\nversion: 1.0.0\n")
	if r := runStax(t, "pack", dir, "-t", "team-skills:1.0.0"); r.Code != 0 {
		t.Fatalf("pack: exit %d %s", r.Code, r.Stderr)
	}
	for name, want := range map[string]string{
		"team-skils": "team-skils has no tags in the local store; did you mean team-skills?",
		"alpine":     "alpine has no tags in the local store (a name without a registry host is the local store's: write docker.io/library/alpine for Docker Hub's)",
	} {
		if r := runStax(t, "tags", name); r.Code != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, want) {
			t.Errorf("tags %s: exit %d, want 0 and %q\n%s%s", name, r.Code, want, r.Stdout, r.Stderr)
		}
	}
}

// remove A B where B is not listed fails as a whole, removing nothing:
// the message lists the sources as they are, A among them, where it
// listed them without A. A named twice is removed once.
func TestRemoveOfOneNotListedListsTheSourcesAsTheyAre(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	for _, name := range []string{"a", "b"} {
		writeSkillFiles(t, filepath.Join(proj, name), map[string]string{name + "/SKILL.md": skillMD(name, "v1")})
	}
	yaml := "install:\n  sources:\n    - path: ./a\n    - path: ./b\n"
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), yaml)
	r := runStax(t, "remove", filepath.Join(proj, "a"), filepath.Join(proj, "c"), "--dir", proj)
	if r.Code != 1 || !strings.Contains(r.Stderr, "which lists ./a, ./b") {
		t.Errorf("remove of a listed and an unlisted source: exit %d, want 1 and both sources listed\n%s", r.Code, r.Stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(proj, "stax.yaml")); string(got) != yaml {
		t.Errorf("stax.yaml after a failed remove:\n%s", got)
	}
	a := filepath.Join(proj, "a")
	if r := runStax(t, "remove", a, a, "--dir", proj); r.Code != 0 {
		t.Errorf("remove of a source named twice: exit %d %s", r.Code, r.Stderr)
	}
}
