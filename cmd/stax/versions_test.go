package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/workflow"
)

// pushVersion pushes a package of version to repo, tagged with that
// version as push does when the reference names no tag, and returns its
// digest.
func pushVersion(t *testing.T, repo, version string) string {
	t.Helper()
	pkg := t.TempDir()
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: org-skills\nversion: "+version+"\n")
	writeSkillFiles(t, filepath.Join(pkg, "skills"), map[string]string{
		"review/SKILL.md": skillMD("review", "Version "+version+"."),
	})
	r := runStax(t, "push", pkg, repo, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("push %s %s: exit %d\n%s", repo, version, r.Code, r.Stderr)
	}
	var out workflow.Transfer
	decodeJSON(t, r.Stdout, &out)
	return out.Digest
}

// A reference with no tag and no digest names the highest version the
// repository has, as helm install without --version does, not :latest,
// which push never writes: pull, install and copy agree on it.
func TestNoTagMeansTheHighestVersion(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	repo := reg.Host + "/acme/org-skills"
	pushVersion(t, repo, "1.9.0")
	want := pushVersion(t, repo, "1.10.0")
	pushVersion(t, repo, "2.0.0-rc.1")

	r := runStax(t, "pull", repo, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("pull without a tag: exit %d\n%s", r.Code, r.Stderr)
	}
	var pulled workflow.PullResult
	decodeJSON(t, r.Stdout, &pulled)
	if len(pulled.Packages) != 1 || pulled.Packages[0].Digest != want {
		t.Errorf("pull without a tag got %+v, want 1.10.0 (%s)", pulled.Packages, want)
	}

	project := t.TempDir()
	r = runStax(t, "install", repo, "--dir", project, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("install without a tag: exit %d\n%s", r.Code, r.Stderr)
	}
	var installed workflow.InstallResult
	decodeJSON(t, r.Stdout, &installed)
	if len(installed.Packages) != 1 || installed.Packages[0].Digest != want {
		t.Errorf("install without a tag installed %+v, want 1.10.0 (%s)", installed.Packages, want)
	}
	skill, err := os.ReadFile(filepath.Join(project, ".claude", "skills", "review", "SKILL.md"))
	if err != nil || !strings.Contains(string(skill), "Version 1.10.0.") {
		t.Errorf("installed SKILL.md: %q, %v", skill, err)
	}

	// A newer release does not move a frozen install, which installs the
	// digests stax.lock recorded without listing any tag.
	newest := pushVersion(t, repo, "1.11.0")
	reg.ResetRequests()
	r = runStax(t, "install", repo, "--dir", project, "--frozen", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("frozen install without a tag: exit %d\n%s", r.Code, r.Stderr)
	}
	var frozen workflow.InstallResult
	decodeJSON(t, r.Stdout, &frozen)
	if len(frozen.Packages) != 1 || frozen.Packages[0].Digest != want {
		t.Errorf("frozen install moved to %+v, want the locked %s", frozen.Packages, want)
	}
	for _, req := range reg.Requests() {
		if strings.HasSuffix(req.Path, "/tags/list") {
			t.Errorf("a frozen install listed tags: %s %s", req.Method, req.Path)
		}
	}

	layout := filepath.Join(t.TempDir(), "layout")
	r = runStax(t, "copy", repo, "oci:"+layout, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("copy without a tag: exit %d\n%s", r.Code, r.Stderr)
	}
	var copied workflow.Transfer
	decodeJSON(t, r.Stdout, &copied)
	if copied.Digest != newest || !strings.Contains(copied.Reference, ":1.11.0") {
		t.Errorf("copy without a tag copied %s as %s, want %s tagged 1.11.0", copied.Digest, copied.Reference, newest)
	}
}

// With no version among its tags, a repository's default is latest, as
// before.
func TestNoTagFallsBackToLatest(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	repo := reg.Host + "/acme/skills"
	want := pushExamples(t, repo+":latest")
	pushExamples(t, repo+":main")
	r := runStax(t, "pull", repo, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("pull without a tag: exit %d\n%s", r.Code, r.Stderr)
	}
	var pulled workflow.PullResult
	decodeJSON(t, r.Stdout, &pulled)
	if len(pulled.Packages) != 1 || pulled.Packages[0].Digest != want.Digest {
		t.Errorf("pull without a tag got %+v, want latest (%s)", pulled.Packages, want.Digest)
	}
}

// A tag that is not there is reported with the tags that are, so the user
// sees the version to ask for.
func TestMissingTagListsTheTags(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	repo := reg.Host + "/acme/org-skills"
	pushVersion(t, repo, "1.9.0")
	pushVersion(t, repo, "1.10.0")
	for _, args := range [][]string{
		{"pull", repo + ":1.0.0"},
		{"install", repo + ":1.0.0", "--dir", t.TempDir()},
	} {
		r := runStax(t, args...)
		if r.Code == 0 || !strings.Contains(r.Stderr, "1.10.0, 1.9.0") || !strings.Contains(r.Stderr, "stax tags "+repo) {
			t.Errorf("%s: exit %d, stderr does not list the tags:\n%s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
}
