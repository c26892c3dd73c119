package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/workflow"
)

// releaseAnthropics11 commits a new pdf skill to repo and tags it v1.1.0.
func releaseAnthropics11(repo *gittest.Repo) string {
	repo.Write(map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Read and fill PDF forms, 1.1.0. Use when a PDF is given.\n---\n\nRead PDFs, now with forms.\n"})
	commit := repo.Commit("skills 1.1.0")
	repo.Tag("v1.1.0", "")
	return commit
}

// gitRef is the git reference to repo's repository, at subdir and ref
// when they are set.
func gitRef(repo *gittest.Repo, subdir, ref string) string {
	s := "git+" + repo.URL
	if subdir != "" {
		s += "//" + subdir
	}
	if ref != "" {
		s += "#" + ref
	}
	return s
}

// stax tags lists a git repository's tags, highest version first, with
// one git ls-remote; a branch is no tag.
func TestTagsOfGitRepository(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	releaseAnthropics11(repo)
	repo.Branch("next")

	r := runStax(t, "tags", gitRef(repo, "skills", "main"))
	if want := "v1.1.0\nv1.0.0\n"; r.Code != 0 || r.Stdout != want {
		t.Errorf("stax tags GITREF: exit %d, stdout\n%s\nwant\n%s\nstderr: %s", r.Code, r.Stdout, want, r.Stderr)
	}
	r = runStax(t, "tags", gitRef(repo, "", ""), "--output", "json")
	var res workflow.TagsResult
	decodeJSON(t, r.Stdout, &res)
	if res.Repository != repo.URL || strings.Join(res.Tags, " ") != "v1.1.0 v1.0.0" {
		t.Errorf("stax tags GITREF --output json = %+v", res)
	}
	// --local lists the REFs the local store keeps packages of, from the
	// repository and SUBDIR named, with the skills chosen.
	if r = runStax(t, "tags", gitRef(repo, "", ""), "--local"); r.Code != 0 || r.Stdout != "" {
		t.Errorf("stax tags GITREF --local of nothing installed: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, args := range [][]string{{gitRef(repo, "", "v1.0.0"), "--skill", "pdf"}, {gitRef(repo, "", "next")}, {gitRef(repo, "skills/docx", "")}} {
		if r := runStax(t, append([]string{"install", "--dir", t.TempDir(), "--runtime", "claude-code"}, args...)...); r.Code != 0 {
			t.Fatalf("install %v: exit %d\n%s", args, r.Code, r.Stderr)
		}
	}
	if r = runStax(t, "tags", gitRef(repo, "", ""), "--local"); r.Code != 0 || r.Stdout != "v1.0.0?skill=pdf\nnext\n" {
		t.Errorf("stax tags GITREF --local: exit %d, stdout\n%s\nwant the REFs installed from the repository's root\n%s", r.Code, r.Stdout, r.Stderr)
	}
	missing := strings.TrimSuffix(repo.URL, "skills.git") + "missing.git"
	if r = runStax(t, "tags", "git+"+missing); r.Code != 3 || !strings.Contains(r.Stderr, missing) {
		t.Errorf("stax tags of a missing repository: exit %d, want 3 naming it\n%s", r.Code, r.Stderr)
	}
}

// An organisation mirrors a public repository's skills into its own
// registry: stax push GITREF and stax copy GITREF --sign build the package
// from the commit's tree, the same package both times, annotated with the
// repository and commit, which inspect shows; installed from the mirror,
// the skills are the repository's files.
func TestPushAndCopyGitSourceToRegistry(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	setenv(t, "STAX_PASSWORD", "mirror-pass")
	srv, repo, commit := serveAnthropics(t)
	releaseAnthropics11(repo)
	reg := registrytest.New(t)
	mirror := reg.Host + "/mirror/anthropic-skills"

	srv.Reset()
	r := runStax(t, "push", gitRef(repo, "", "v1.0.0"), mirror+":1.0.0", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("push GITREF: exit %d\n%s", r.Code, r.Stderr)
	}
	var pushed workflow.PushResult
	decodeJSON(t, r.Stdout, &pushed)
	// One over-long description: a warning naming the skill, not a refusal.
	if !strings.Contains(r.Stderr, "claude-api") {
		t.Errorf("push GITREF: no warning names claude-api's description:\n%s", r.Stderr)
	}

	// --strict refuses the skill that breaks a content rule, as install
	// --strict does.
	if r := runStax(t, "push", gitRef(repo, "", "v1.0.0"), mirror+":strict", "--strict"); r.Code != 1 || !strings.Contains(r.Stderr, "claude-api") {
		t.Errorf("push GITREF --strict: exit %d, want 1 naming claude-api\n%s", r.Code, r.Stderr)
	}

	key, pub := generateKeyPair(t, filepath.Join(t.TempDir(), "keys", "mirror"))
	r = runStax(t, "copy", gitRef(repo, "", "v1.0.0"), mirror+":copied", "--sign", "--sign-key", key, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("copy GITREF --sign: exit %d\n%s", r.Code, r.Stderr)
	}
	var copied workflow.Transfer
	decodeJSON(t, r.Stdout, &copied)
	if copied.Digest != pushed.Digest {
		t.Errorf("copy built %s, push %s: the same commit builds the same package", copied.Digest, pushed.Digest)
	}
	if r := runStax(t, "verify", mirror+":copied", "--key", pub); r.Code != 0 {
		t.Errorf("verify the signed copy: exit %d\n%s", r.Code, r.Stderr)
	}
	// A git repository carries no signature: a copy required to verify
	// one is refused, not made unverified.
	// So is one given a key without --verify, which asks for the check too.
	for _, args := range [][]string{{"--verify", "require", "--key", pub}, {"--key", pub}} {
		r = runStax(t, append([]string{"copy", gitRef(repo, "", "v1.0.0"), mirror + ":unverified"}, args...)...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "--verify require") {
			t.Errorf("copy GITREF %v: exit %d, want 1 naming --verify require\n%s", args, r.Code, r.Stderr)
		}
	}

	r = runStax(t, "inspect", mirror+":1.0.0")
	for _, want := range []string{"org.opencontainers.image.revision: " + commit, "org.opencontainers.image.source: " + repo.URL, "Package:       skills 1.0.0"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("inspect of the mirror does not show %q:\n%s", want, r.Stdout)
		}
	}

	proj := t.TempDir()
	if r := runStax(t, "install", mirror+":1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install from the mirror: exit %d\n%s", r.Code, r.Stderr)
	}
	direct := t.TempDir()
	if r := runStax(t, "install", gitRef(repo, "", "v1.0.0"), "--dir", direct, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install from the repository: exit %d\n%s", r.Code, r.Stderr)
	}
	mirrored, fromGit := readLockFile(t, proj).Packages[0], readLockFile(t, direct).Packages[0]
	if mirrored.Digest != fromGit.Digest || !slices.Equal(mirrored.Skills, fromGit.Skills) || len(mirrored.Skills) != 5 {
		t.Errorf("installed from the mirror: %s %v; from the repository: %s %v", mirrored.Digest, mirrored.Skills, fromGit.Digest, fromGit.Skills)
	}
	want, _ := os.ReadFile(filepath.Join(anthropicsFixture, "skills", "pdf", "SKILL.md"))
	got, err := os.ReadFile(filepath.Join(proj, ".claude", "skills", "pdf", "SKILL.md"))
	if err != nil || string(got) != string(want) {
		t.Errorf("pdf installed from the mirror = %q, %v; want v1.0.0's %q", got, err, want)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(home, "git", "*.git", "objects", "pack", "tmp_*")); len(leftovers) > 0 {
		t.Errorf("the git cache holds temporary packs: %s", leftovers)
	}
}

// fileOf reads a file of proj, "" when it is missing.
func fileOf(t *testing.T, proj, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(proj, filepath.FromSlash(rel)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// A git source installed at v1.0.0 is outdated once v1.1.0 is tagged: a
// dry run plans the update skill by skill and writes nothing; the update
// moves stax.lock's commit and the folder to v1.1.0. The repository is
// listed with one ls-remote.
func TestOutdatedAndUpdateGitSourceToNewTag(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	srv, repo, v100 := serveAnthropics(t)
	proj := t.TempDir()
	src := gitRef(repo, "skills/pdf", "")
	if r := runStax(t, "install", src, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	oldSkill, oldLock := fileOf(t, proj, ".claude/skills/pdf/SKILL.md"), fileOf(t, proj, "stax.lock")
	if !strings.Contains(oldLock, v100) {
		t.Fatalf("stax.lock does not record v1.0.0's commit %s:\n%s", v100, oldLock)
	}
	r := runStax(t, "outdated", "--dir", proj)
	if r.Code != 0 || strings.Contains(r.Stdout, "1.1.0") {
		t.Errorf("outdated before v1.1.0: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	v110 := releaseAnthropics11(repo)

	lsRemote := lsRemoteRequests(t, srv, home, src)
	r = runStax(t, "outdated", "--dir", proj, "--output", "json")
	var out workflow.OutdatedResult
	decodeJSON(t, r.Stdout, &out)
	want := workflow.OutdatedPackage{Ref: src, Locked: "1.0.0", Wanted: "1.1.0", Latest: "1.1.0", Outdated: true}
	if len(out.Packages) != 1 || out.Packages[0] != want {
		t.Errorf("outdated --output json = %+v, want %+v", out.Packages, want)
	}
	if n := srv.Requests(); n != lsRemote {
		t.Errorf("outdated made %d requests, want one ls-remote's %d", n, lsRemote)
	}
	if r = runStax(t, "outdated", "--dir", proj); !strings.Contains(r.Stdout, "1.0.0") || !strings.Contains(r.Stdout, "1.1.0") {
		t.Errorf("outdated does not show 1.0.0 and 1.1.0:\n%s", r.Stdout)
	}

	r = runStax(t, "update", "--dry-run", "--dir", proj, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("update --dry-run: exit %d\n%s", r.Code, r.Stderr)
	}
	var plan workflow.UpdateResult
	decodeJSON(t, r.Stdout, &plan)
	if len(plan.Packages) != 1 || plan.Packages[0].Change != workflow.ChangeUpdated || plan.Packages[0].OldVersion != "1.0.0" || plan.Packages[0].NewVersion != "1.1.0" ||
		len(plan.Skills) != 1 || plan.Skills[0].Path != "pdf" || plan.Skills[0].Change != workflow.ChangeChanged || !plan.DryRun {
		t.Errorf("update --dry-run planned %+v", plan)
	}
	if fileOf(t, proj, "stax.lock") != oldLock || fileOf(t, proj, ".claude/skills/pdf/SKILL.md") != oldSkill {
		t.Errorf("update --dry-run changed stax.lock or the skill")
	}

	if r = runStax(t, "update", "--dir", proj); r.Code != 0 {
		t.Fatalf("update: exit %d\n%s", r.Code, r.Stderr)
	}
	if l := fileOf(t, proj, "stax.lock"); !strings.Contains(l, v110) || strings.Contains(l, v100) {
		t.Errorf("stax.lock after update does not record v1.1.0's commit %s alone:\n%s", v110, l)
	}
	if s := fileOf(t, proj, ".claude/skills/pdf/SKILL.md"); !strings.Contains(s, "1.1.0") {
		t.Errorf("pdf after update:\n%s", s)
	}
	if r = runStax(t, "outdated", "--dir", proj, "--output", "json"); r.Code != 0 || strings.Contains(r.Stdout, `"outdated":true`) {
		t.Errorf("outdated after update: exit %d\n%s", r.Code, r.Stdout)
	}
}

// A git source that names a branch is outdated once the branch moves:
// outdated shows the short commits, and update takes the new one.
func TestOutdatedAndUpdateGitSourceOnMovedBranch(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, first := serveAnthropics(t)
	proj := t.TempDir()
	src := gitRef(repo, "skills/pdf", "main")
	if r := runStax(t, "install", src, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "outdated", "--dir", proj); r.Code != 0 || !strings.Contains(r.Stdout, "main@"+first[:7]) || !strings.Contains(r.Stderr, "every package is at its latest version") {
		t.Errorf("outdated before main moved: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	moved := releaseAnthropics11(repo)
	r := runStax(t, "outdated", "--dir", proj, "--output", "json")
	var out workflow.OutdatedResult
	decodeJSON(t, r.Stdout, &out)
	repoRef := gitRef(repo, "skills/pdf", "")
	want := workflow.OutdatedPackage{Ref: repoRef, Locked: "main@" + first[:7], Wanted: "main@" + moved[:7], Latest: "1.1.0", Outdated: true}
	if len(out.Packages) != 1 || out.Packages[0] != want {
		t.Errorf("outdated --output json = %+v, want %+v", out.Packages, want)
	}
	if r = runStax(t, "update", "--dir", proj); r.Code != 0 {
		t.Fatalf("update: exit %d\n%s", r.Code, r.Stderr)
	}
	if l := fileOf(t, proj, "stax.lock"); !strings.Contains(l, moved) {
		t.Errorf("stax.lock after update does not record main's new commit %s:\n%s", moved, l)
	}
	if s := fileOf(t, proj, ".claude/skills/pdf/SKILL.md"); !strings.Contains(s, "1.1.0") {
		t.Errorf("pdf after update:\n%s", s)
	}
}

// update SOURCE --to VERSION moves a git source to the tag of that
// version, lower or higher: stax.yaml names the tag, stax.lock its
// commit. A version with no tag is exit 4, naming the tags there are.
func TestUpdateGitSourceToVersion(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, v100 := serveAnthropics(t)
	v110 := releaseAnthropics11(repo)
	proj := t.TempDir()
	src := gitRef(repo, "skills/pdf", "")
	if r := runStax(t, "install", src, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if l := fileOf(t, proj, "stax.lock"); !strings.Contains(l, v110) {
		t.Fatalf("install took another commit than v1.1.0's %s:\n%s", v110, l)
	}
	if r := runStax(t, "update", src, "--to", "1.0.0", "--dir", proj); r.Code != 0 {
		t.Fatalf("update --to 1.0.0: exit %d\n%s", r.Code, r.Stderr)
	}
	if y := fileOf(t, proj, "stax.yaml"); !strings.Contains(y, gitRef(repo, "skills/pdf", "v1.0.0")) {
		t.Errorf("stax.yaml after update --to 1.0.0 does not name v1.0.0:\n%s", y)
	}
	if l := fileOf(t, proj, "stax.lock"); !strings.Contains(l, v100) {
		t.Errorf("stax.lock after update --to 1.0.0 does not record v1.0.0's commit %s:\n%s", v100, l)
	}
	if s := fileOf(t, proj, ".claude/skills/pdf/SKILL.md"); strings.Contains(s, "1.1.0") {
		t.Errorf("pdf after update --to 1.0.0 is 1.1.0's:\n%s", s)
	}
	r := runStax(t, "update", src, "--to", "3.0.0", "--dir", proj)
	if r.Code != 4 || !strings.Contains(r.Stderr, "v1.1.0") {
		t.Errorf("update --to a version with no tag: exit %d, want 4 naming the tags\n%s", r.Code, r.Stderr)
	}
}

// update --latest moves a git source's range that does not allow the
// repository's highest release to ^ it, keeping the skills it chose, and
// installs that release.
func TestUpdateLatestMovesGitSourceRange(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	repo.Write(map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Read PDFs, 2.0.0. Use when a PDF is given.\n---\n\nRead PDFs, 2.0.0.\n"})
	v200 := repo.Commit("skills 2.0.0")
	repo.Tag("v2.0.0", "")
	proj := t.TempDir()
	src := gitRef(repo, "", "")
	if r := runStax(t, "install", src, "--version", "^1.0.0", "--skill", "pdf", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	r := runStax(t, "update", "--latest", "--dir", proj, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("update --latest: exit %d\n%s", r.Code, r.Stderr)
	}
	var res workflow.UpdateResult
	decodeJSON(t, r.Stdout, &res)
	if len(res.Ranges) != 1 || res.Ranges[0].Old != "^1.0.0" || res.Ranges[0].New != "^2.0.0" {
		t.Errorf("update --latest moved %+v, want ^1.0.0 to ^2.0.0", res.Ranges)
	}
	if y := fileOf(t, proj, "stax.yaml"); !strings.Contains(y, "^2.0.0") || !strings.Contains(y, "pdf") {
		t.Errorf("stax.yaml after update --latest:\n%s", y)
	}
	if l := fileOf(t, proj, "stax.lock"); !strings.Contains(l, v200) {
		t.Errorf("stax.lock after update --latest does not record v2.0.0's commit %s:\n%s", v200, l)
	}
	if got := installedSkills(t, proj); len(got) != 1 || got[0] != "pdf" {
		t.Errorf("installed after update --latest: %v, want pdf alone", got)
	}
}

// A plain install keeps a git source at the commit stax.lock holds, as it
// keeps a registry source at its digest, even once its branch moved;
// only update moves it. Written otherwise than the lock records it (a
// SUBDIR with a trailing slash), the source is still recognised there.
func TestInstallKeepsGitSourceAtLockedCommit(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, first := serveAnthropics(t)
	proj := t.TempDir()
	args := []string{"--dir", proj, "--runtime", "claude-code"}
	if r := runStax(t, append([]string{"install", gitRef(repo, "skills/pdf/", "main")}, args...)...); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	locked := fileOf(t, proj, "stax.lock")
	moved := releaseAnthropics11(repo)
	if r := runStax(t, append([]string{"install"}, args...)...); r.Code != 0 {
		t.Fatalf("install again: exit %d\n%s", r.Code, r.Stderr)
	}
	if l := fileOf(t, proj, "stax.lock"); l != locked || !strings.Contains(l, first) {
		t.Errorf("a plain install moved the git source from %s (to %s):\n%s", first, moved, l)
	}
	if s := fileOf(t, proj, ".claude/skills/pdf/SKILL.md"); strings.Contains(s, "1.1.0") {
		t.Errorf("a plain install took the moved branch's skill:\n%s", s)
	}
	if r := runStax(t, append([]string{"update"}, args...)...); r.Code != 0 {
		t.Fatalf("update: exit %d\n%s", r.Code, r.Stderr)
	}
	if l := fileOf(t, proj, "stax.lock"); !strings.Contains(l, moved) {
		t.Errorf("update did not move the git source to %s:\n%s", moved, l)
	}
}

// A token written in a git source's URL reaches no output of tags,
// outdated, update or push, nor the mirrored package's annotations.
func TestGitSourceCredentialsNeverShown(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	withSecret := "git+" + strings.Replace(repo.URL, "://", "://someone:s3cret-token@", 1) + "//skills/pdf"
	proj := t.TempDir()
	reg := registrytest.New(t)
	runs := [][]string{
		{"install", withSecret, "--dir", proj, "--runtime", "claude-code"},
		{"tags", withSecret},
		{"tags", withSecret, "--output", "json"},
	}
	for _, args := range runs {
		if r := runStax(t, args...); r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", args[0], r.Code, r.Stderr)
		}
	}
	releaseAnthropics11(repo)
	runs = append(runs,
		[]string{"outdated", "--dir", proj},
		[]string{"outdated", "--dir", proj, "--output", "json"},
		[]string{"update", "--dry-run", "--dir", proj, "--output", "json"},
		[]string{"push", withSecret, reg.Host + "/mirror/pdf:1.1.0", "--output", "json"},
		[]string{"inspect", reg.Host + "/mirror/pdf:1.1.0"},
		[]string{"tags", strings.Replace(withSecret, "skills.git", "missing.git", 1)},
	)
	for _, args := range runs {
		r := runStax(t, args...)
		if strings.Contains(r.Stdout+r.Stderr, "s3cret-token") {
			t.Errorf("stax %s shows the token:\n%s%s", strings.Join(args, " "), r.Stdout, r.Stderr)
		}
	}
}

// A project installing from a registry and from git repositories is
// compared with both at once, each package in the order stax.yaml names
// it.
func TestOutdatedRegistryAndGitSources(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	reg := registrytest.New(t)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	proj := t.TempDir()
	args := []string{"--dir", proj, "--runtime", "claude-code"}
	for _, src := range [][]string{{gitRef(repo, "skills/pdf", "")}, {reg.Host + "/acme/skills", "--version", "^1.0.0"}, {gitRef(repo, "skills/docx", "main")}} {
		if r := runStax(t, append(append([]string{"add"}, src...), args...)...); r.Code != 0 {
			t.Fatalf("add %s: exit %d\n%s", src, r.Code, r.Stderr)
		}
	}
	releaseAnthropics11(repo)
	tagWithCrane(t, reg.Host+"/acme/skills:1.0.0", "1.2.0")
	r := runStax(t, "outdated", "--dir", proj, "--output", "json")
	var out workflow.OutdatedResult
	decodeJSON(t, r.Stdout, &out)
	var got []string
	for _, p := range out.Packages {
		got = append(got, p.Ref+" "+p.Locked+" "+p.Wanted)
	}
	want := []string{gitRef(repo, "skills/pdf", "") + " 1.0.0 1.1.0", reg.Host + "/acme/skills 1.0.0 1.2.0"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || !strings.HasPrefix(got[2], gitRef(repo, "skills/docx", "")+" main@") {
		t.Errorf("outdated = %q, want %q and docx on main", got, want)
	}
}

// A token written in a git source's URL is in no file of the stax home
// (the git cache's and the local store's, which keeps the package under
// the URL, included) nor of the project after an install and a frozen
// one, but stax.yaml, where the user wrote it.
func TestGitSourceCredentialsNeverStored(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	_, repo, _ := serveAnthropics(t)
	withSecret := "git+" + strings.Replace(repo.URL, "://", "://someone:s3cret-token@", 1) + "//skills/pdf"
	proj := t.TempDir()
	for _, args := range [][]string{
		{"install", withSecret, "--dir", proj, "--runtime", "claude-code"},
		{"install", "--frozen", "--dir", proj, "--runtime", "claude-code"},
	} {
		if r := runStax(t, args...); r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", args[0], r.Code, r.Stderr)
		}
	}
	tags, err := store.Tags(context.Background(), filepath.Join(home, "store"))
	if err != nil || !slices.Contains(tags, "git+"+repo.URL+"//skills/pdf#v1.0.0") {
		t.Fatalf("the local store's tags are %q (%v), want the package under its git reference", tags, err)
	}
	for _, dir := range []string{home, proj} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == "stax.yaml" {
				return nil
			}
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte("s3cret-token")) {
				t.Errorf("%s holds the token:\n%.400s", p, b)
			}
			return nil
		})
	}
}

// git runs in the command's environment, not only the process's: a
// variable the command is given (here GIT_TRACE, which has git write what
// it runs to a file) reaches the git a git source is fetched with, as a
// credential helper's or an SSH agent's would.
func TestGitSourceRunsGitInTheCommandsEnvironment(t *testing.T) {
	t.Parallel()
	useHome(t)
	trace := filepath.Join(t.TempDir(), "git.trace")
	setenv(t, "GIT_TRACE", trace)
	installExamplesFromGit(t, "git+"+serveExamples(t).URL+"#v1.0.0")
	if text := readText(t, trace); !strings.Contains(text, "ls-remote") {
		t.Errorf("git's trace names no ls-remote:\n%.400s", text)
	}
}

// A SUBDIR named with a '#' (written %23 in the reference) installs, is
// kept in the local store under its own key, and installs --frozen from
// the stax.lock it wrote: the lock records it as the directory's name
// and reads it back as that, not as a SUBDIR and a REF split at the '#'.
func TestGitSourceSubdirWithHash(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	gittest.RequireGit(t)
	repo := gittest.NewServer(t).NewRepo(t, "hash")
	repo.Write(map[string]string{"team#1/skills/pdf/SKILL.md": skillMD("pdf", "Read PDFs.")})
	repo.Commit("skills")
	repo.Tag("v1.0.0", "")
	proj := t.TempDir()
	if r := runStax(t, "install", "git+"+repo.URL+"//team%231#v1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	tags, err := store.Tags(context.Background(), filepath.Join(home, "store"))
	if want := "git+" + repo.URL + "//team%231#v1.0.0"; err != nil || !slices.Contains(tags, want) {
		t.Errorf("the local store's tags are %q (%v), want %q", tags, err, want)
	}
	if r := runStax(t, "install", "--frozen", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Errorf("install --frozen: exit %d\n%s", r.Code, r.Stderr)
	}
}

// A git source that a package declares under packages: is listed as a
// dependency, as a registry one is: it wants what its package recorded,
// the commit locked, and is outdated once a newer release is tagged. Its
// repository is listed with one ls-remote however many of its SUBDIRs
// are declared.
func TestOutdatedGitSourceOfPackage(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	srv, repo, _ := serveAnthropics(t)
	team := t.TempDir()
	filetest.Write(t, team, map[string]string{
		"stax.yaml":           "name: team\nversion: 1.0.0\npackages:\n  - " + gitRef(repo, "skills/pdf", "") + "\n  - " + gitRef(repo, "skills/docx", "v1.0.0") + "\n",
		"skills/own/SKILL.md": "---\nname: own\ndescription: The team's own skill. Use when asked.\n---\nbody\n",
	})
	proj := t.TempDir()
	if r := runStax(t, "install", team, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	releaseAnthropics11(repo)
	lsRemote := lsRemoteRequests(t, srv, home, gitRef(repo, "", ""))
	r := runStax(t, "outdated", "--dir", proj, "--output", "json")
	var out workflow.OutdatedResult
	decodeJSON(t, r.Stdout, &out)
	want := []workflow.OutdatedPackage{
		{Ref: gitRef(repo, "skills/docx", ""), Locked: "1.0.0", Wanted: "1.0.0", Latest: "1.1.0", Dependency: true, Outdated: true},
		{Ref: gitRef(repo, "skills/pdf", ""), Locked: "1.0.0", Wanted: "1.0.0", Latest: "1.1.0", Dependency: true, Outdated: true},
	}
	if !slices.Equal(out.Packages, want) {
		t.Errorf("outdated --output json = %+v, want %+v", out.Packages, want)
	}
	if n := srv.Requests(); n != lsRemote {
		t.Errorf("outdated made %d requests, want one ls-remote's %d", n, lsRemote)
	}
	if r = runStax(t, "outdated", "--dir", proj); !strings.Contains(r.Stdout, gitRef(repo, "skills/pdf", "")+" (dependency)") {
		t.Errorf("outdated does not show the git dependency:\n%s", r.Stdout)
	}
}

// push GITREF refuses, before asking the repository or the registry
// anything, each flag that shapes only a package built from a directory,
// naming it and why: ignored, it would be believed to have been applied.
func TestPushGitSourceRefusesDirectoryFlags(t *testing.T) {
	t.Parallel()
	useHome(t)
	srv, repo, _ := serveAnthropics(t)
	reg := registrytest.New(t)
	for _, tt := range []struct{ flag, why string }{
		{"--created=2026-01-02T03:04:05Z", "epoch"},
		{"--symlink-mode=reject", "flatten"},
		{"--against=" + reg.Host + "/mirror/skills:0.9.0", "author"},
		{"--allow-placeholders", "as it is"},
		{"--push-dependencies", "depends on"},
	} {
		srv.Reset()
		reg.ResetRequests()
		r := runStax(t, "push", gitRef(repo, "", "v1.0.0"), reg.Host+"/mirror/skills:1.0.0", tt.flag)
		name, _, _ := strings.Cut(tt.flag, "=")
		if r.Code != 1 || !strings.Contains(r.Stderr, name) || !strings.Contains(r.Stderr, tt.why) {
			t.Errorf("push GITREF %s: exit %d, want 1 naming %s and why (%q)\n%s", tt.flag, r.Code, name, tt.why, r.Stderr)
		}
		if n, got := srv.Requests(), reg.Requests(); n != 0 || len(got) != 0 {
			t.Errorf("push GITREF %s asked the repository %d times and the registry %v", tt.flag, n, got)
		}
	}
}

// push GITREF builds the package install builds from that commit:
// SOURCE_DATE_EPOCH is not read, so one that is not a number refuses
// nothing, and one that is changes no digest. --sign and --no-overwrite
// apply as they do to a directory.
func TestPushGitSourceSignsAndIgnoresSourceDate(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	releaseAnthropics11(repo)
	reg := registrytest.New(t)
	mirror := reg.Host + "/mirror/skills"
	r := runStax(t, "push", gitRef(repo, "", "v1.0.0"), mirror+":1.0.0", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("push GITREF: exit %d\n%s", r.Code, r.Stderr)
	}
	var first workflow.PushResult
	decodeJSON(t, r.Stdout, &first)

	key, pub := newKeyPair(t, "mirror")
	for _, epoch := range []string{"1700000000", "not-a-number"} {
		setenv(t, "SOURCE_DATE_EPOCH", epoch)
		r = runStax(t, "push", gitRef(repo, "", "v1.0.0"), mirror+":signed", "--sign", "--key", key, "--output", "json")
		if r.Code != 0 {
			t.Fatalf("push GITREF --sign with SOURCE_DATE_EPOCH=%s: exit %d\n%s", epoch, r.Code, r.Stderr)
		}
		var signed workflow.PushResult
		decodeJSON(t, r.Stdout, &signed)
		if signed.Digest != first.Digest {
			t.Errorf("SOURCE_DATE_EPOCH=%s built %s, want %s: the commit alone decides the package", epoch, signed.Digest, first.Digest)
		}
	}
	setenv(t, "SOURCE_DATE_EPOCH", "") // read by the commands below
	if r := runStax(t, "verify", mirror+":signed", "--key", pub); r.Code != 0 {
		t.Errorf("verify the signed mirror: exit %d\n%s", r.Code, r.Stderr)
	}
	// v1.1.0 is another package: --no-overwrite keeps 1.0.0 where it is.
	if r := runStax(t, "push", gitRef(repo, "", "v1.1.0"), mirror+":1.0.0", "--no-overwrite"); r.Code != 3 {
		t.Errorf("push GITREF --no-overwrite over another package: exit %d, want 3\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", mirror+":1.0.0"); strings.TrimSpace(r.Stdout) != first.Digest {
		t.Errorf("--no-overwrite moved the tag: %q %s", r.Stdout, r.Stderr)
	}
}

// The help of each flag push refuses with a GITREF says it is for a
// package built from DIR, as docs/cli shows it.
func TestPushDirectoryFlagsSayWhenBuildingDIR(t *testing.T) {
	t.Parallel()
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader("")}, environment{}, nil)
	push, _, err := root.Find([]string{"push"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"created", "symlink-mode", "against", "allow-placeholders", "push-dependencies"} {
		if usage := push.Flags().Lookup(name).Usage; !strings.HasPrefix(usage, "when building DIR: ") {
			t.Errorf("stax push --%s: help %q does not say it is for a package built from DIR", name, usage)
		}
	}
}

// stax copy and stax push, the two ways to mirror a git source, apply the
// trust policy to it as install and pull apply it: a scope that must
// verify refuses the source, which carries no signature, before anything
// is written; with --verify warn and a signer it is copied with the
// warning any package that does not verify gets.
func TestMirrorOfGitSourceKeepsTheTrustPolicy(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	_, repo, _ := serveAnthropics(t)
	reg := registrytest.New(t)
	src := gitRef(repo, "", "v1.0.0")
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("mode: require\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	installed := runStax(t, "install", src, "--dir", t.TempDir(), "--runtime", "claude-code")
	if installed.Code == 0 {
		t.Fatalf("install GITREF under mode: require took it:\n%s", installed.Stderr)
	}
	for _, mirror := range []string{"copy", "push"} {
		reg.ResetRequests()
		r := runStax(t, mirror, src, reg.Host+"/mirror/skills:1.0.0")
		if r.Code != installed.Code || !strings.Contains(r.Stderr, "must be verified (require)") {
			t.Errorf("%s GITREF under mode: require: exit %d, want %d as install, naming the rule\n%s", mirror, r.Code, installed.Code, r.Stderr)
		}
		if n := len(reg.Requests()); n != 0 {
			t.Errorf("a %s the trust policy refused sent %d requests to the destination", mirror, n)
		}
	}

	_, pub := newKeyPair(t, "acme")
	mirror := filepath.Join(t.TempDir(), "mirror")
	r := runStax(t, "copy", src, "oci:"+mirror+":1.0.0", "--verify", "warn", "--key", pub)
	if r.Code != 0 || !strings.Contains(r.Stderr, "does not verify") || listTree(t, mirror) == "" {
		t.Errorf("copy GITREF --verify warn --key: exit %d, want 0, a copy and the warning of a package that does not verify\n%s", r.Code, r.Stderr)
	}
}

// What docs/sources.md says of copy --verify warn of a git source is
// what copy does: with no signer trusted it refuses the source (exit 1),
// as it refuses any package, where the page told only of a copy with a
// warning.
func TestDocsSayCopyVerifyWarnOfAGitSourceNeedsASigner(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	mirror := filepath.Join(t.TempDir(), "mirror")
	r := runStax(t, "copy", gitRef(repo, "", "v1.0.0"), "oci:"+mirror+":1.0.0", "--verify", "warn")
	if r.Code != 1 || !strings.Contains(r.Stderr, "no signer is trusted") {
		t.Fatalf("copy GITREF --verify warn with no signer: exit %d, want 1 and why\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(mirror); !os.IsNotExist(err) {
		t.Errorf("a refused copy wrote %s: %v", mirror, err)
	}
	const claim = "copy --verify warn with no signer trusted (no --key, none in the trust policy) refuses it (exit 1)"
	if !strings.Contains(flat(repoFile(t, "docs/sources.md")), claim) {
		t.Errorf("docs/sources.md does not say %q", claim)
	}
}
