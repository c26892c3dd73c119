package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/internal/registrytest"
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
	if r = runStax(t, "tags", gitRef(repo, "", ""), "--local"); r.Code != 1 || !strings.Contains(r.Stderr, "--local") {
		t.Errorf("stax tags GITREF --local: exit %d, want 1 naming --local\n%s", r.Code, r.Stderr)
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
	want, _ := os.ReadFile(filepath.Join(anthropicsFixture, "skills", "pdf", "SKILL.md"))
	got, err := os.ReadFile(filepath.Join(proj, ".claude", "skills", "pdf", "SKILL.md"))
	if err != nil || string(got) != string(want) {
		t.Errorf("pdf installed from the mirror = %q, %v; want v1.0.0's %q", got, err, want)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(home, "git", "*.git", "objects", "pack", "tmp_*")); len(leftovers) > 0 {
		t.Errorf("the git cache holds temporary packs: %s", leftovers)
	}
}
