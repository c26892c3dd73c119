package main

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/lock"
)

const anthropicsFixture = "../../testdata/repos/anthropics-skills"

// serveAnthropics serves the fixture laid out as anthropics/skills, tagged
// v1.0.0, from git's own smart-HTTP server; it returns the server, the
// repository and the commit.
func serveAnthropics(t *testing.T) (*gittest.Server, *gittest.Repo, string) {
	t.Helper()
	gittest.RequireGit(t)
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "skills")
	repo.WriteDir(anthropicsFixture)
	commit := repo.Commit("skills")
	repo.Tag("v1.0.0", "")
	return srv, repo, commit
}

// lsRemoteRequests is how many requests one git ls-remote of the
// repository of src makes to srv, whose count it then resets: all that a
// command asking only ls-remote may make.
func lsRemoteRequests(t *testing.T, srv *gittest.Server, home, src string) int64 {
	t.Helper()
	ref, err := gitsource.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	srv.Reset()
	if _, err := gitsource.NewCache(home).ListRefs(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	n := srv.Requests()
	srv.Reset()
	return n
}

// installedSkills are the skill folders of proj's .claude/skills.
func installedSkills(t *testing.T, proj string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(proj, ".claude", "skills"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

func readLockFile(t *testing.T, proj string) *lock.Lock {
	t.Helper()
	l, err := lock.Read(filepath.Join(proj, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestInstallGitAnthropicsSkills: a repository laid out as
// anthropics/skills installs by plugin, by SUBDIR and by --skill, and
// stax.lock records the URL, SUBDIR, REF, plugin, skills and commit.
func TestInstallGitAnthropicsSkills(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, commit := serveAnthropics(t)
	src := "git+" + repo.URL
	for _, tc := range []struct {
		name   string
		args   []string
		skills []string
		subdir string
		plugin string
	}{
		{"plugin", []string{src, "--plugin", "document-skills@anthropic-agent-skills"}, []string{"docx", "pdf", "xlsx"}, "", "document-skills@anthropic-agent-skills"},
		{"subdir", []string{src + "//skills/pdf#v1.0.0"}, []string{"pdf"}, "skills/pdf", ""},
		{"skill", []string{src, "--skill", "docx", "--skill", "frontend-design"}, []string{"docx", "frontend-design"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := t.TempDir()
			r := runStax(t, append([]string{"install", "--dir", proj, "--runtime", "claude-code"}, tc.args...)...)
			if r.Code != 0 {
				t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
			}
			if got := installedSkills(t, proj); !slices.Equal(got, tc.skills) {
				t.Errorf("installed %v, want %v", got, tc.skills)
			}
			p := readLockFile(t, proj).Packages[0]
			g := p.Git
			if g == nil || g.URL != repo.URL || g.Subdir != tc.subdir || g.Ref != "v1.0.0" || g.Kind != "tag" || g.Commit != commit || g.Plugin != tc.plugin {
				t.Fatalf("stax.lock records %+v", g)
			}
			if len(p.Skills) != len(tc.skills) {
				t.Errorf("stax.lock records the skills %+v, want %v", p.Skills, tc.skills)
			}
		})
	}
}

// TestInstallGitRepeatedSkill: the skills chosen are a set, so a repeated
// --skill installs, locks and keys the package as one does: the two
// projects' stax.lock are the same text.
func TestInstallGitRepeatedSkill(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	locks := map[string]string{}
	for name, skills := range map[string][]string{"once": {"--skill", "pdf"}, "twice": {"--skill", "pdf", "--skill", "pdf"}} {
		proj := t.TempDir()
		r := runStax(t, append([]string{"install", "git+" + repo.URL, "--dir", proj, "--runtime", "claude-code"}, skills...)...)
		if r.Code != 0 {
			t.Fatalf("install %s: exit %d\n%s", name, r.Code, r.Stderr)
		}
		if g := readLockFile(t, proj).Packages[0].Git; g == nil || !slices.Equal(g.Skills, []string{"pdf"}) {
			t.Errorf("install %s: stax.lock records %+v, want the skills [pdf]", name, g)
		}
		b, err := os.ReadFile(filepath.Join(proj, lock.FileName))
		if err != nil {
			t.Fatal(err)
		}
		locks[name] = string(b)
	}
	if locks["once"] != locks["twice"] {
		t.Errorf("a repeated --skill locks\n%s\nwhere one locks\n%s", locks["twice"], locks["once"])
	}
}

// TestInstallGitLenientAndStrict: a skill that breaks a content rule
// (claude-api's description is over 1,024 characters) installs with one
// warning naming it; --strict refuses it.
func TestInstallGitLenientAndStrict(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	proj := t.TempDir()
	args := []string{"install", "git+" + repo.URL, "--skill", "claude-api", "--dir", proj, "--runtime", "claude-code"}
	r := runStax(t, args...)
	if r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if n := strings.Count(r.Stderr, "claude-api"); n != 1 {
		t.Errorf("the warning names claude-api %d times, want once:\n%s", n, r.Stderr)
	}
	strict := t.TempDir()
	r = runStax(t, "install", "git+"+repo.URL, "--skill", "claude-api", "--strict", "--dir", strict, "--runtime", "claude-code")
	if r.Code == 0 || !strings.Contains(r.Stderr, "claude-api") {
		t.Errorf("install --strict: exit %d, want a refusal naming claude-api:\n%s", r.Code, r.Stderr)
	}
	// The file is named where it is in the repository, not in the
	// temporary checkout it was read from, which is gone.
	if !strings.Contains(r.Stderr, "\n  skills/claude-api/SKILL.md:") || strings.Contains(r.Stderr, "stax-git-") {
		t.Errorf("install --strict names the file by its checkout:\n%s", r.Stderr)
	}
}

// TestInstallGitFrozen: a frozen install in a fresh clone of the project
// materializes the locked commit from the git cache with no request at
// all; a second install asks only ls-remote; a lock whose package digest
// is not the tree's is refused (exit 4).
func TestInstallGitFrozen(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	srv, repo, _ := serveAnthropics(t)
	proj := t.TempDir()
	args := []string{"--dir", proj, "--runtime", "claude-code"}
	if r := runStax(t, append([]string{"install", "git+" + repo.URL, "--plugin", "document-skills"}, args...)...); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	clone := t.TempDir()
	for _, f := range []string{"stax.yaml", lock.FileName} {
		b, err := os.ReadFile(filepath.Join(proj, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(clone, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv.Reset()
	if r := runStax(t, "install", "--frozen", "--dir", clone); r.Code != 0 {
		t.Fatalf("install --frozen: exit %d\n%s", r.Code, r.Stderr)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("a frozen install of a cached commit made %d requests", n)
	}
	if got := installedSkills(t, clone); !slices.Equal(got, []string{"docx", "pdf", "xlsx"}) {
		t.Errorf("frozen install: %v", got)
	}

	lsRemote := lsRemoteRequests(t, srv, home, "git+"+repo.URL)
	// Another project installing the commit cached asks only ls-remote;
	// this one, whose stax.lock keeps the commit, asks nothing.
	srv.Reset()
	if r := runStax(t, "install", "git+"+repo.URL, "--plugin", "document-skills", "--dir", t.TempDir(), "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("second install: exit %d\n%s", r.Code, r.Stderr)
	}
	if n := srv.Requests(); n != lsRemote {
		t.Errorf("a second install made %d requests, want ls-remote's %d", n, lsRemote)
	}
	srv.Reset()
	if r := runStax(t, append([]string{"install"}, args...)...); r.Code != 0 {
		t.Fatalf("install again: exit %d\n%s", r.Code, r.Stderr)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("an install whose stax.lock keeps the commit made %d requests", n)
	}

	l := readLockFile(t, clone)
	l.Packages[0].Digest = digest.FromString("another tree")
	if _, err := l.Write(filepath.Join(clone, lock.FileName)); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "install", "--frozen", "--dir", clone)
	if r.Code != 4 || !strings.Contains(r.Stderr, string(l.Packages[0].Digest)) {
		t.Errorf("frozen install of an edited digest: exit %d, want 4 naming it:\n%s", r.Code, r.Stderr)
	}
}

// TestInstallGitHostile: credentials in the URL reach neither stax.lock
// nor the output; a missing repository is exit 3, a missing REF exit 4
// listing the nearest tags.
func TestInstallGitHostile(t *testing.T) {
	t.Parallel()
	useHome(t)
	srv, repo, _ := serveAnthropics(t)
	withSecret := "git+" + strings.Replace(repo.URL, "://", "://someone:s3cret-token@", 1)
	proj := t.TempDir()
	r := runStax(t, "install", withSecret+"//skills/pdf", "--dir", proj, "--runtime", "claude-code", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	lockData, err := os.ReadFile(filepath.Join(proj, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"stax.lock": string(lockData), "stdout": r.Stdout, "stderr": r.Stderr} {
		if strings.Contains(s, "s3cret-token") {
			t.Errorf("%s holds the credentials:\n%s", what, s)
		}
	}

	r = runStax(t, "install", "git+"+srv.URL+"/missing.git", "--dir", t.TempDir(), "--runtime", "claude-code")
	if r.Code != 3 || !strings.Contains(r.Stderr, "missing.git") {
		t.Errorf("a missing repository: exit %d, want 3 naming it:\n%s", r.Code, r.Stderr)
	}
	r = runStax(t, "install", "git+"+repo.URL+"#v1.0.1", "--dir", t.TempDir(), "--runtime", "claude-code")
	if r.Code != 4 || !strings.Contains(r.Stderr, "v1.0.0") {
		t.Errorf("a missing REF: exit %d, want 4 naming v1.0.0:\n%s", r.Code, r.Stderr)
	}
}

// TestInspectGitSource: inspect lists a git source's skills with their
// descriptions before anything is installed, and names the commit it was
// built from.
func TestInspectGitSource(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, commit := serveAnthropics(t)
	r := runStax(t, "inspect", "git+"+repo.URL)
	if r.Code != 0 {
		t.Fatalf("inspect: exit %d\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{"docx", "Create and edit Word documents", "pdf", "Fill, merge and extract PDF files", commit} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("inspect does not show %q:\n%s", want, r.Stdout)
		}
	}
}

// TestInstallGitPluginPartsNotInstalled: a plugin's commands, agents,
// hooks and MCP servers are named once as not installed; remove drops the
// git source and its skills.
func TestInstallGitPluginPartsNotInstalled(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	proj := t.TempDir()
	src := "git+" + repo.URL
	r := runStax(t, "install", src, "--plugin", "dev-tools", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if n := strings.Count(r.Stderr, "dev-tools"); n != 1 {
		t.Errorf("the plugin's parts not installed are named %d times, want once:\n%s", n, r.Stderr)
	}
	if got := installedSkills(t, proj); len(got) != 1 {
		t.Errorf("installed %v, want the plugin's one skill", got)
	}
	r = runStax(t, "remove", src, "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("remove: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := installedSkills(t, proj); len(got) != 0 {
		t.Errorf("remove left %v", got)
	}
}

// TestPullGitSourceOutput: pull -o writes a git source's skills into a
// directory.
func TestPullGitSourceOutput(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	out := filepath.Join(t.TempDir(), "out")
	if r := runStax(t, "pull", "git+"+repo.URL+"//skills/pdf", "-o", out); r.Code != 0 {
		t.Fatalf("pull -o: exit %d\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "pdf", "SKILL.md")); err != nil {
		t.Error(err)
	}
}

// TestInstallSkillOfRegistrySource: --skill keeps only the skills named
// of a registry source too, and stax.yaml keeps the choice; a name the
// package lacks is exit 4 listing its skills.
func TestInstallSkillOfRegistrySource(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", examples, ref); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	proj := t.TempDir()
	r := runStax(t, "install", ref, "--skill", "review-pr", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := installedSkills(t, proj); !slices.Equal(got, []string{"review-pr"}) {
		t.Errorf("installed %v, want [review-pr]", got)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "stax.yaml")); !strings.Contains(string(b), "skills: [review-pr]") {
		t.Errorf("stax.yaml does not keep the choice:\n%s", b)
	}
	if r := runStax(t, "install", "--frozen", "--dir", proj); r.Code != 0 {
		t.Errorf("install --frozen: exit %d\n%s", r.Code, r.Stderr)
	}
	r = runStax(t, "install", ref, "--skill", "no-such-skill", "--dir", t.TempDir(), "--runtime", "claude-code")
	if r.Code != 4 || !strings.Contains(r.Stderr, "review-pr") {
		t.Errorf("an unknown skill: exit %d, want 4 listing the skills:\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "install", "--skill", "review-pr", "--dir", proj); r.Code != 1 {
		t.Errorf("--skill without a SOURCE: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
	r = runStax(t, "install", ref, "--plugin", "some-plugin", "--dir", t.TempDir(), "--runtime", "claude-code")
	if r.Code != 1 || !strings.Contains(r.Stderr, "not a git repository") {
		t.Errorf("--plugin of a registry source: exit %d, want 1:\n%s", r.Code, r.Stderr)
	}
}

// TestInstallGitFrozenFreshHome: a frozen install with an empty git
// cache fetches the locked commit itself, not what its tag names now: a
// tag moved since the lock was written changes nothing.
func TestInstallGitFrozenFreshHome(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	proj := t.TempDir()
	if r := runStax(t, "install", "git+"+repo.URL+"//skills/pdf", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	locked, err := os.ReadFile(filepath.Join(proj, ".claude", "skills", "pdf", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	repo.Write(map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Moved. Use when asked.\n---\nmoved\n"})
	repo.Commit("moved")
	repo.Git("tag", "-f", "v1.0.0")
	os.RemoveAll(filepath.Join(proj, ".claude"))
	useHome(t)
	if r := runStax(t, "install", "--frozen", "--dir", proj); r.Code != 0 {
		t.Fatalf("install --frozen in a fresh home: exit %d\n%s", r.Code, r.Stderr)
	}
	got, err := os.ReadFile(filepath.Join(proj, ".claude", "skills", "pdf", "SKILL.md"))
	if err != nil || string(got) != string(locked) {
		t.Errorf("frozen install wrote %q (%v), want the locked %q", got, err, locked)
	}
}

// TestDiffGitReferences: diff compares two REFs of a git source.
func TestDiffGitReferences(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	repo.Write(map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Changed in 1.1. Use when asked.\n---\nchanged\n"})
	repo.Commit("1.1")
	repo.Tag("v1.1.0", "")
	r := runStax(t, "diff", "git+"+repo.URL+"//skills/pdf#v1.0.0", "git+"+repo.URL+"//skills/pdf#v1.1.0")
	if r.Code != 0 && r.Code != 1 || !strings.Contains(r.Stdout, "pdf") {
		t.Errorf("diff: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestAddGitVersionRange: add --version picks the highest semver tag of a
// git repository in the range; stax.yaml keeps the range, stax.lock the
// tag and commit.
func TestAddGitVersionRange(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	repo.Write(map[string]string{"skills/pdf/extra.md": "1.1"})
	second := repo.Commit("1.1")
	repo.Tag("v1.1.0", "")
	repo.Write(map[string]string{"skills/pdf/extra.md": "2.0"})
	repo.Commit("2.0")
	repo.Tag("v2.0.0", "")
	proj := t.TempDir()
	src := "git+" + repo.URL + "//skills/pdf"
	r := runStax(t, "install", src, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code", "--dry-run")
	if r.Code != 0 {
		t.Fatalf("install --dry-run: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "add", src, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	p := readLockFile(t, proj).Packages[0]
	if p.Git == nil || p.Git.Ref != "v1.1.0" || p.Git.Commit != second || p.Range != "^1.0.0" || p.Version != "1.1.0" {
		t.Errorf("stax.lock records %+v, git %+v", p, p.Git)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "stax.yaml")); !strings.Contains(string(b), `version: "^1.0.0"`) {
		t.Errorf("stax.yaml does not keep the range:\n%s", b)
	}
	if r := runStax(t, "add", src+"#v1.0.0", "--version", "^1.0.0", "--dir", proj); r.Code != 1 {
		t.Errorf("a REF and a range: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
}

// TestInstallPackageDeclaringGitSource: a package directory that declares
// a git source under packages: installs it below itself, and records it
// at the tag it resolved through.
func TestInstallPackageDeclaringGitSource(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	team := t.TempDir()
	filetest.Write(t, team, map[string]string{
		"stax.yaml":           "name: team\nversion: 1.0.0\npackages:\n  - git+" + repo.URL + "//skills/pdf\n",
		"skills/own/SKILL.md": "---\nname: own\ndescription: The team's own skill. Use when asked.\n---\nbody\n",
	})
	proj := t.TempDir()
	r := runStax(t, "install", team, "--dir", proj, "--runtime", "claude-code")
	if r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := installedSkills(t, proj); !slices.Equal(got, []string{"own", "pdf"}) {
		t.Errorf("installed %v, want [own pdf]", got)
	}
	r = runStax(t, "inspect", team, "--output", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, "skills/pdf#v1.0.0") {
		t.Errorf("inspect: exit %d, want the dependency recorded at v1.0.0:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestInstallGitFrozenOtherProcess: another stax process, in a $STAX_HOME
// of its own that holds only the git cache (as CI restores it), installs
// a fresh clone of the project --frozen with no request at all.
func TestInstallGitFrozenOtherProcess(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	srv, repo, _ := serveAnthropics(t)
	proj := t.TempDir()
	if r := runStax(t, "install", "git+"+repo.URL, "--skill", "pdf", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	clone := t.TempDir()
	for _, f := range []string{"stax.yaml", lock.FileName} {
		b, err := os.ReadFile(filepath.Join(proj, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(clone, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := t.TempDir()
	copyTree(t, filepath.Join(home, gitsource.CacheDir), filepath.Join(other, gitsource.CacheDir))
	srv.Reset()
	staxProcs(t, []string{"STAX_HOME=" + other, "HOME=" + t.TempDir()}, [][]string{{"install", "--frozen", "--dir", clone}})
	if n := srv.Requests(); n != 0 {
		t.Errorf("a frozen install in another process with the commit cached made %d requests", n)
	}
	if got := installedSkills(t, clone); !slices.Equal(got, []string{"pdf"}) {
		t.Errorf("installed %v, want [pdf]", got)
	}
}

// A frozen install refusing a git source whose tree packs to another
// digest than stax.lock's writes nothing: no folder, the lock as it was.
func TestInstallGitFrozenMismatchWritesNothing(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, repo, _ := serveAnthropics(t)
	proj := t.TempDir()
	if r := runStax(t, "install", "git+"+repo.URL+"//skills/pdf", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	clone := t.TempDir()
	for _, f := range []string{"stax.yaml", lock.FileName} {
		filetest.WriteFile(t, filepath.Join(clone, f), fileOf(t, proj, f))
	}
	l := readLockFile(t, clone)
	l.Packages[0].Digest = digest.FromString("another tree")
	if _, err := l.Write(filepath.Join(clone, lock.FileName)); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, clone)
	r := runStax(t, "install", "--frozen", "--dir", clone, "--runtime", "claude-code")
	if r.Code != 4 {
		t.Errorf("frozen install of an edited digest: exit %d, want 4:\n%s", r.Code, r.Stderr)
	}
	if after := treeState(t, clone); !maps.Equal(before, after) {
		t.Errorf("a refused frozen install changed the project:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
}

// Without git on PATH, installing a git source is a local error (exit 2)
// saying to install git; installing anything else does not need git.
func TestInstallGitMissingFromPath(t *testing.T) {
	t.Parallel()
	_, repo, _ := serveAnthropics(t)
	examplesDir, err := filepath.Abs(examples)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"STAX_HOME=" + t.TempDir(), "HOME=" + t.TempDir(), "PATH=" + t.TempDir()}
	var stderr strings.Builder
	cmd := staxCommand(t, env, "install", "git+"+repo.URL+"//skills/pdf", "--dir", t.TempDir(), "--runtime", "claude-code")
	cmd.Stderr = &stderr
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), "install git") {
		t.Errorf("a git source without git: exit %d (%v), want 2 saying to install git:\n%s", code, err, stderr.String())
	}
	stderr.Reset()
	cmd = staxCommand(t, env, "install", examplesDir, "--dir", t.TempDir(), "--runtime", "claude-code")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("a directory source without git: %v\n%s", err, stderr.String())
	}
}

// A frozen install cancelled while git fetches the locked commit leaves
// the project as it was and nothing in the git cache's temporary files.
func TestInstallGitCancelledFetch(t *testing.T) {
	t.Parallel()
	useHome(t)
	srv, repo, _ := serveAnthropics(t)
	proj := t.TempDir()
	if r := runStax(t, "install", "git+"+repo.URL+"//skills/pdf", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	home := useHome(t) // an empty cache: the frozen install fetches the commit
	before := treeState(t, proj)
	fetching := make(chan struct{})
	var once sync.Once
	srv.Fault = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost {
			return false
		}
		// Read to its end, so that the server sees the client leave.
		io.Copy(io.Discard, r.Body)
		once.Do(func() { close(fetching) })
		<-r.Context().Done()
		return true
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-fetching; cancel() }()
	var out, errOut bytes.Buffer
	code := executeTest(t, ctx, []string{"install", "--frozen", "--dir", proj}, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	if code == 0 {
		t.Fatalf("a cancelled install succeeded:\n%s", errOut.String())
	}
	if after := treeState(t, proj); !maps.Equal(before, after) {
		t.Errorf("a cancelled install changed the project:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
	for _, pattern := range []string{"git/.stax-git-*", "git/*/objects/incoming-*", "git/*/objects/pack/tmp_*", "git/*/*.lock", "git/*/objects/tmp_*"} {
		if left, _ := filepath.Glob(filepath.Join(home, pattern)); len(left) > 0 {
			t.Errorf("the git cache keeps %v", left)
		}
	}
}
