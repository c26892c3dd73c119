package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

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
