package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
)

// TestVerifyInstalledTakesKeysFromTheCommandsTrustPolicy: without --key,
// verify --installed compares the installed files with what the package's
// signature signs using the keys of the trust policy in the stax home of
// the command's environment, so that a MEMORY.md changed together with
// the install record is found.
func TestVerifyInstalledTakesKeysFromTheCommandsTrustPolicy(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	_, pub, host, proj := installSigned(t)
	policy := "scopes:\n  - scope: " + host + "/acme\n    keys: [" + pub + "]\n"
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("verify a clean install: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}

	skills := filepath.Join(proj, ".claude", "skills")
	memory := []byte("# Memory\n\nforged lesson\n")
	if err := os.WriteFile(filepath.Join(skills, "incident-postmortem", "MEMORY.md"), memory, 0o644); err != nil {
		t.Fatal(err)
	}
	recPath := filepath.Join(skills, ".stax-install.json")
	var rec map[string]any
	if err := json.Unmarshal(mustRead(t, recPath), &rec); err != nil {
		t.Fatal(err)
	}
	files := rec["skills"].(map[string]any)["incident-postmortem"].(map[string]any)["files"].(map[string]any)
	files["MEMORY.md"] = "644 " + digest.FromBytes(memory).String()
	data, _ := json.Marshal(rec)
	if err := os.WriteFile(recPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "verify", "--installed", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 6 || !strings.Contains(r.Stdout, "skill incident-postmortem: not as signed: MEMORY.md changed") {
		t.Fatalf("verify against the policy's key: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
}

// A flag the form of verify given would ignore is refused before anything
// is read or asked: --policy beside the signers that replace it, --local
// with --installed, and the installed skills' flags with a package REF.
func TestVerifyRefusesFlagsItWouldIgnore(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, pub := newKeyPair(t, "k")
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	for _, args := range [][]string{
		{"verify", "acme/skills:1.0.0", "--key", pub, "--policy", policy},
		{"verify", "acme/skills:1.0.0", "--certificate-identity", "a@b.example", "--policy", policy},
		{"verify", "--installed", "--local"},
		{"verify", "acme/skills:1.0.0", "--key", pub, "--runtime", "cursor"},
		{"verify", "acme/skills:1.0.0", "--key", pub, "--dir", t.TempDir()},
	} {
		if r := runStax(t, args...); r.Code != 1 {
			t.Errorf("%v: exit %d, want 1 (a flag it would ignore)\n%s", args, r.Code, r.Stderr)
		}
	}
}
