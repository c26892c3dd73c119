package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderAndShowAdmitFromTheOCILayout: a stateful skill installed from a
// signed package of the layout --oci-layout names is checked against that
// package, not against one of the default store, by render and show: the
// skill as installed is admitted, and refused once its MEMORY.md changes.
func TestRenderAndShowAdmitFromTheOCILayout(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	priv, pub := newKeyPair(t, "acme")
	layout := filepath.Join(t.TempDir(), "layout")
	ref := "oci:" + layout + ":1.0.0"
	if r := runStax(t, "push", examples, ref); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if r := runStax(t, "sign", ref, "--key", priv); r.Code != 0 {
		t.Fatalf("sign: %d %s", r.Code, r.Stderr)
	}
	proj := t.TempDir()
	if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("mode: require\nkeys: ["+pub+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "store")); !os.IsNotExist(err) {
		t.Fatalf("the default store was written to: %v", err)
	}

	skill := filepath.Join(proj, ".claude", "skills", "incident-postmortem")
	show := []string{"show", "incident-postmortem", "--runtime", "claude-code", "--dir", proj, "--oci-layout", layout}
	if r := runStax(t, "render", skill, "--oci-layout", layout); r.Code != 0 || !strings.Contains(r.Stdout, "incident") {
		t.Fatalf("render of the skill as installed: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, show...); r.Code != 0 {
		t.Fatalf("show of the skill as installed: %d %s", r.Code, r.Stderr)
	}

	if err := os.WriteFile(filepath.Join(skill, "MEMORY.md"), []byte("# Memory\n\nforged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "render", skill, "--oci-layout", layout)
	if r.Code != 6 || !strings.Contains(r.Stderr, "MEMORY.md changed") || r.Stdout != "" {
		t.Fatalf("render of a changed MEMORY.md: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	r = runStax(t, show...)
	if r.Code != 6 || !strings.Contains(r.Stderr, "refusing the stateful skill incident-postmortem") {
		t.Fatalf("show of a changed MEMORY.md: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestRenderAndShowTraceTheSignatureCheck: with --debug, the registry
// requests render and show send to check a stateful skill's signature are
// traced as every other command's are: the check opens packages as the
// rest of the command does, with the global flags.
func TestRenderAndShowTraceTheSignatureCheck(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	_, pub, host, proj := installSigned(t)
	policy := "scopes:\n  - scope: " + host + "/acme\n    mode: require\n    keys: [" + pub + "]\n"
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(proj, ".claude", "skills", "incident-postmortem")
	for _, args := range [][]string{
		{"render", skill, "--debug"},
		{"show", "incident-postmortem", "--runtime", "claude-code", "--dir", proj, "--debug"},
	} {
		r := runStax(t, args...)
		if r.Code != 0 {
			t.Fatalf("%s: %d %s", args[0], r.Code, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "> [1] ") || !strings.Contains(r.Stderr, " GET http://"+host+"/v2/acme/skills/manifests/sha256:") {
			t.Errorf("%s --debug: the signature check's requests are not traced:\n%s", args[0], r.Stderr)
		}
	}
}
