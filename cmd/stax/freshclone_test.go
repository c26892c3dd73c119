package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/install"
)

// TestFreshCloneFrozenInstallLeavesGitClean: a project commits stax.yaml,
// stax.lock and its installed folders; in a fresh clone, install --frozen
// changes none of them, and the committed install record holds nothing of
// the checkout that wrote it (its file times).
func TestFreshCloneFrozenInstallLeavesGitClean(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	useHome(t)
	reg := registrytest.New(t)
	alpha, beta := reg.Host+"/acme/alpha:1.0.0", reg.Host+"/acme/beta:1.0.0"
	pushSkillVersion(t, alpha, "alpha", "1.0.0")
	pushSkillVersion(t, beta, "beta", "1.0.0")

	proj := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	git(proj, "init", "-q")
	if r := runStax(t, "install", alpha, beta, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	record, err := os.ReadFile(filepath.Join(proj, ".claude", "skills", install.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(record), `"stat"`) {
		t.Errorf("the committed record holds this checkout's file times:\n%s", record)
	}
	git(proj, "add", "-A")
	git(proj, "commit", "-q", "-m", "skills")

	clone := filepath.Join(t.TempDir(), "clone")
	git(filepath.Dir(clone), "clone", "-q", proj, clone)
	if r := runStax(t, "install", "--frozen", "--dir", clone); r.Code != 0 {
		t.Fatalf("install --frozen in the clone: exit %d\n%s", r.Code, r.Stderr)
	}
	if st := git(clone, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("install --frozen in a fresh clone changed the checkout:\n%s", st)
	}
	// A second install in the project itself rewrites nothing either.
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("re-install: exit %d\n%s", r.Code, r.Stderr)
	}
	if st := git(proj, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("a re-install changed the project:\n%s", st)
	}
}
