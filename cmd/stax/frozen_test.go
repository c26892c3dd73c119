package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/lock"
)

// TestFrozenInstallRefusesEditedSkillDigest: stax.lock pins each skill's
// digest as well as its package's; a frozen install of a lock whose skill
// digest was edited installs nothing and names the skill, both digests
// and the fix.
func TestFrozenInstallRefusesEditedSkillDigest(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", examples, ref); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	proj := t.TempDir()
	args := []string{"install", ref, "--dir", proj, "--runtime", "claude-code"}
	if r := runStax(t, args...); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	lockPath := filepath.Join(proj, lock.FileName)
	l, err := lock.Read(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	edited := &l.Packages[0].Skills[0]
	name, real := edited.Path, edited.Digest
	edited.Digest = digest.FromString("edited")
	if _, err := l.Write(lockPath); err != nil {
		t.Fatal(err)
	}
	skills := filepath.Join(proj, ".claude", "skills")
	os.RemoveAll(skills)

	r := runStax(t, append(args, "--frozen")...)
	if r.Code != 4 {
		t.Fatalf("frozen with an edited skill digest: exit %d, want 4: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{name, string(real), string(edited.Digest), "without --frozen"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the message does not say %q: %s", want, r.Stderr)
		}
	}
	if _, err := os.Stat(skills); !os.IsNotExist(err) {
		t.Errorf("a refused frozen install wrote %s (%v)", skills, err)
	}
}

// TestFrozenInstallFromTheStoreMakesNoRequest: install --frozen of what
// the local store holds whole reads it from there, without a request;
// install without --frozen keeps what stax.lock holds of a tag that
// moved, and update asks the registry what its tags name, and sees it.
func TestFrozenInstallFromTheStoreMakesNoRequest(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	alpha, beta := reg.Host+"/acme/alpha:1.0.0", reg.Host+"/acme/beta:1.0.0"
	pushSkillVersion(t, alpha, "alpha", "1.0.0")
	pushSkillVersion(t, beta, "beta", "1.0.0")
	proj := t.TempDir()
	if r := runStax(t, "install", alpha, beta, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	os.RemoveAll(filepath.Join(proj, ".claude"))
	reg.ResetRequests()
	if r := runStax(t, "install", "--frozen", "--dir", proj); r.Code != 0 {
		t.Fatalf("install --frozen: exit %d\n%s", r.Code, r.Stderr)
	}
	reg.WaitIdle()
	if reqs := reg.Requests(); len(reqs) != 0 {
		t.Errorf("install --frozen of stored packages made %d requests, want none: %+v", len(reqs), reqs)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/beta/SKILL.md")); !strings.Contains(got, "beta 1.0.0") {
		t.Errorf("install --frozen did not install beta:\n%s", got)
	}

	// Nor does an install that is not frozen of the sources stax.lock pins.
	os.RemoveAll(filepath.Join(proj, ".claude"))
	reg.ResetRequests()
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	reg.WaitIdle()
	if reqs := reg.Requests(); len(reqs) != 0 {
		t.Errorf("install of locked, stored packages made %d requests, want none: %+v", len(reqs), reqs)
	}

	// The tag moves: an install keeps the locked digest, as stax.lock
	// says; stax update asks, and follows it.
	pushSkillVersion(t, beta, "beta", "1.0.1")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/beta/SKILL.md")); !strings.Contains(got, "beta 1.0.0") {
		t.Errorf("install did not keep the locked digest of the moved tag:\n%s", got)
	}
	if r := runStax(t, "update", "--dir", proj); r.Code != 0 {
		t.Fatalf("update: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/beta/SKILL.md")); !strings.Contains(got, "beta 1.0.1") {
		t.Errorf("update did not follow the moved tag:\n%s", got)
	}
}

// TestInstallExchangesATokenOncePerRepository: packages fetched at once
// from one repository of a registry that issues tokens share one token
// exchange; each other repository has its own.
func TestInstallExchangesATokenOncePerRepository(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t, registrytest.WithTokenAuth(echoUser, echoPassword))
	config := savedCredentials(t, reg.Host, echoUser, echoPassword)
	refs := []string{reg.Host + "/acme/alpha:1.0.0", reg.Host + "/acme/alpha:2.0.0", reg.Host + "/acme/alpha:3.0.0", reg.Host + "/acme/beta:1.0.0"}
	for i, ref := range refs {
		dir := t.TempDir()
		filetest.Write(t, dir, map[string]string{
			"stax.yaml": "name: p\nversion: 1.0.0\n",
			"skills/s" + string(rune('a'+i)) + "/SKILL.md": "---\nname: s" + string(rune('a'+i)) + "\ndescription: A skill. Use when testing.\n---\nBody.\n",
		})
		if r := runStax(t, "push", dir, ref, "--registry-config", config); r.Code != 0 {
			t.Fatalf("push %s: exit %d\n%s", ref, r.Code, r.Stderr)
		}
	}
	before := len(reg.IssuedTokens())
	args := append([]string{"install", "--no-save", "--dir", t.TempDir(), "--runtime", "claude-code", "--registry-config", config, "--concurrency", "4"}, refs...)
	if r := runStax(t, args...); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := len(reg.IssuedTokens()) - before; got != 2 {
		t.Errorf("the install exchanged %d tokens, want 2: one for each repository", got)
	}
}
