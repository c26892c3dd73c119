package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/internal/sigstoretest"
)

// broughtIn is what one command that brings a package in did.
type broughtIn struct {
	r     result
	wrote bool
}

// bringIn runs each command that brings ref in (install, pull -o, copy)
// with flags, each to a new target, and returns its result and whether
// it wrote its target.
func bringIn(t *testing.T, ref string, flags ...string) map[string]broughtIn {
	t.Helper()
	out := map[string]broughtIn{}
	proj := t.TempDir()
	r := runStax(t, append([]string{"install", ref, "--dir", proj, "--runtime", "claude-code"}, flags...)...)
	out["install"] = broughtIn{r, listTree(t, proj) != ""}
	dir := filepath.Join(t.TempDir(), "out")
	r = runStax(t, append([]string{"pull", ref, "-o", dir}, flags...)...)
	out["pull"] = broughtIn{r, listTree(t, dir) != ""}
	mirror := filepath.Join(t.TempDir(), "mirror")
	r = runStax(t, append([]string{"copy", ref, "oci:" + mirror + ":1.0.0"}, flags...)...)
	out["copy"] = broughtIn{r, listTree(t, mirror) != ""}
	return out
}

// TestVerificationFlagsRequireWithoutVerify: a signer or a trusted root
// given without --verify is a check asked for, as cosign verify --key is:
// install, pull and copy refuse an unsigned, wrongly signed, wrong-issuer
// or tampered package with exit 6 and write nothing, where they used to
// take it with exit 0.
func TestVerificationFlagsRequireWithoutVerify(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, pub := newKeyPair(t, "acme")
	otherPriv, _ := newKeyPair(t, "other")
	reg := registrytest.New(t)
	unsigned, signed, wrongKey := reg.Host+"/acme/unsigned:1.0.0", reg.Host+"/acme/signed:1.0.0", reg.Host+"/acme/other:1.0.0"
	pushExamples(t, unsigned)
	pushExamples(t, signed, "--sign", "--key", priv)
	pushExamples(t, wrongKey, "--sign", "--key", otherPriv)

	s := sigstoretest.New(t)
	root := s.WriteTrustedRoot(t, t.TempDir())
	keyless := keylessPackage(t, s, sigstoretest.SignOptions{Identity: acmeWorkflow, Issuer: actionsIssuer}, false)
	tampered := keylessPackage(t, s, sigstoretest.SignOptions{Identity: acmeWorkflow, Issuer: actionsIssuer}, true)
	identity := []string{"--trusted-root", root, "--certificate-identity", acmeWorkflow, "--certificate-oidc-issuer", actionsIssuer}

	for _, c := range []struct {
		name  string
		ref   string
		flags []string
		says  string
	}{
		{"unsigned, --key", unsigned, []string{"--key", pub}, "no signature"},
		{"another key's signature, --key", wrongKey, []string{"--key", pub}, "wrong key"},
		{"wrong issuer, --certificate-oidc-issuer", keyless, []string{"--trusted-root", root, "--certificate-identity", acmeWorkflow, "--certificate-oidc-issuer", "https://accounts.google.com"}, "wrong issuer"},
		{"tampered, --certificate-identity", tampered, identity, "bad signature"},
		{"unsigned, --certificate-identity-regexp", unsigned, []string{"--trusted-root", root, "--certificate-identity-regexp", "^https://github\\.com/acme/.*$", "--certificate-oidc-issuer", actionsIssuer}, "no signature"},
	} {
		for cmd, got := range bringIn(t, c.ref, c.flags...) {
			if got.r.Code != 6 || !strings.Contains(got.r.Stderr, c.says) {
				t.Errorf("%s: %s: exit %d, want 6 saying %q: %s", c.name, cmd, got.r.Code, c.says, got.r.Stderr)
			}
			if got.wrote {
				t.Errorf("%s: %s wrote its target", c.name, cmd)
			}
		}
	}
	// A trusted root alone asks for a check too; with no signer to check
	// it is a usage error, not a pass.
	for cmd, got := range bringIn(t, unsigned, "--trusted-root", os.DevNull) {
		if got.r.Code != 1 || got.wrote {
			t.Errorf("--trusted-root %s: %s: exit %d (wrote: %v), want 1 writing nothing: %s", os.DevNull, cmd, got.r.Code, got.wrote, got.r.Stderr)
		}
	}
	// What verifies still passes.
	for _, c := range []struct {
		ref   string
		flags []string
	}{{signed, []string{"--key", pub}}, {keyless, identity}} {
		for cmd, got := range bringIn(t, c.ref, c.flags...) {
			if got.r.Code != 0 || !got.wrote {
				t.Errorf("%s %v: %s: exit %d (wrote: %v), want 0: %s", c.ref, c.flags, cmd, got.r.Code, got.wrote, got.r.Stderr)
			}
		}
	}
}

// TestVerificationFlagsAndExplicitMode: an explicit --verify decides.
// warn keeps warning; none contradicts a signer given with it, a usage
// error naming both, before anything is fetched or written.
func TestVerificationFlagsAndExplicitMode(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, pub := newKeyPair(t, "acme")
	reg := registrytest.New(t)
	unsigned := reg.Host + "/acme/unsigned:1.0.0"
	pushExamples(t, unsigned)

	for cmd, got := range bringIn(t, unsigned, "--verify", "warn", "--key", pub) {
		if got.r.Code != 0 || !got.wrote || !strings.Contains(got.r.Stderr, "warning: "+unsigned+" does not verify") {
			t.Errorf("--verify warn --key: %s: exit %d (wrote: %v), want 0 with a warning: %s", cmd, got.r.Code, got.wrote, got.r.Stderr)
		}
	}
	proj := t.TempDir()
	// A ranged source, which update --latest looks up first.
	if r := runStax(t, "install", reg.Host+"/acme/unsigned", "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	reg.ResetRequests()
	for cmd, got := range bringIn(t, unsigned, "--verify", "none", "--key", pub) {
		if got.r.Code != 1 || got.wrote || !strings.Contains(got.r.Stderr, "--verify none") || !strings.Contains(got.r.Stderr, "--key") {
			t.Errorf("--verify none --key: %s: exit %d (wrote: %v), want 1 naming both flags: %s", cmd, got.r.Code, got.wrote, got.r.Stderr)
		}
	}
	if r := runStax(t, "update", "--latest", "--dir", proj, "--verify", "none", "--key", pub); r.Code != 1 || !strings.Contains(r.Stderr, "--verify none") {
		t.Errorf("update --verify none --key: exit %d, want 1 naming both flags: %s", r.Code, r.Stderr)
	}
	if n := len(reg.Requests()); n != 0 {
		t.Errorf("a usage error sent %d requests to the registry", n)
	}
}

// TestUnanchoredIdentityPatternWarnsOnce: an identity pattern not anchored
// at both ends matches anywhere in the certificate's identity, as in
// cosign, and stays so: `.*@acme.example` accepts a signature by
// evil@acme.example.attacker.com. stax says so once per command, naming
// what else the pattern accepts and the anchored pattern to write, whether
// the pattern came from a flag or from the trust policy.
func TestUnanchoredIdentityPatternWarnsOnce(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	s := sigstoretest.New(t)
	root := s.WriteTrustedRoot(t, home)
	evil := sigstoretest.SignOptions{Identity: "evil@acme.example.attacker.com", Issuer: actionsIssuer}
	first, second := keylessPackage(t, s, evil, false), keylessPackage(t, s, evil, false)
	const pattern = ".*@acme.example"
	warning := "warning: the certificate identity pattern `.*@acme.example` is not anchored: it matches anywhere in the certificate identity, so it also accepts `evil@acme.example.attacker.com`; to match the whole certificate identity, write `^.*@acme\\.example$`\n"
	check := func(name string, r result) {
		t.Helper()
		if r.Code != 0 {
			t.Errorf("%s: exit %d, want 0 (the pattern accepts the signer, as cosign's does): %s", name, r.Code, r.Stderr)
		}
		if n := strings.Count(r.Stderr, warning); n != 1 {
			t.Errorf("%s: the warning is there %d times, want once:\n%s", name, n, r.Stderr)
		}
	}

	flags := []string{"--trusted-root", root, "--certificate-identity-regexp", pattern, "--certificate-oidc-issuer", actionsIssuer}
	proj := t.TempDir()
	check("install of two packages", runStax(t, append([]string{"install", first, second, "--dir", proj, "--runtime", "claude-code"}, flags...)...))
	check("verify", runStax(t, append([]string{"verify", first}, flags...)...))
	check("verify --installed", runStax(t, append([]string{"verify", "--installed", "--dir", proj, "--runtime", "claude-code"}, flags...)...))

	policy := "mode: require\ntrustedRoot: trusted_root.json\nidentities:\n  - issuer: " + actionsIssuer + "\n    subjectRegExp: '" + pattern + "'\n"
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	check("pull under the trust policy", runStax(t, "pull", first, second))

	// Anchored, it says nothing, and refuses the other domain.
	anchored := []string{"--trusted-root", root, "--certificate-identity-regexp", `^.*@acme\.example$`, "--certificate-oidc-issuer", actionsIssuer}
	r := runStax(t, append([]string{"pull", first}, anchored...)...)
	if r.Code != 6 || strings.Contains(r.Stderr, "not anchored") || !strings.Contains(r.Stderr, "wrong identity") {
		t.Errorf("anchored: exit %d, want 6, wrong identity, and no warning: %s", r.Code, r.Stderr)
	}
}

// TestTrustedRootWithoutKeylessSignerIsRefused: a trusted root checks
// keyless signatures only. Given where every signer is a key — with
// --key, or alone over a trust policy that lists keys — it would check
// nothing (even --trusted-root /dev/null passed): each command refuses it,
// exit 1, writing nothing, and the flags alone are refused before any
// request.
func TestTrustedRootWithoutKeylessSignerIsRefused(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	priv, pub := newKeyPair(t, "acme")
	reg := registrytest.New(t)
	signed := reg.Host + "/acme/signed:1.0.0"
	pushExamples(t, signed, "--sign", "--key", priv)

	reg.ResetRequests()
	for cmd, got := range bringIn(t, signed, "--key", pub, "--trusted-root", os.DevNull) {
		if got.r.Code != 1 || got.wrote || !strings.Contains(got.r.Stderr, "--trusted-root checks keyless signatures") {
			t.Errorf("--key --trusted-root %s: %s: exit %d (wrote: %v), want 1 writing nothing: %s", os.DevNull, cmd, got.r.Code, got.wrote, got.r.Stderr)
		}
	}
	if n := len(reg.Requests()); n != 0 {
		t.Errorf("a usage error sent %d requests to the registry", n)
	}
	if r := runStax(t, "verify", signed, "--key", pub, "--trusted-root", os.DevNull); r.Code != 1 || !strings.Contains(r.Stderr, "--trusted-root checks keyless signatures") {
		t.Errorf("verify --key --trusted-root %s: exit %d, want 1: %s", os.DevNull, r.Code, r.Stderr)
	}

	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("keys: ["+pub+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for cmd, got := range bringIn(t, signed, "--trusted-root", os.DevNull) {
		if got.r.Code != 1 || got.wrote || !strings.Contains(got.r.Stderr, "--trusted-root checks keyless signatures") {
			t.Errorf("--trusted-root %s over a policy of keys: %s: exit %d (wrote: %v), want 1 writing nothing: %s", os.DevNull, cmd, got.r.Code, got.wrote, got.r.Stderr)
		}
	}
	if r := runStax(t, "verify", signed, "--trusted-root", os.DevNull); r.Code != 1 || !strings.Contains(r.Stderr, "--trusted-root checks keyless signatures") {
		t.Errorf("verify --trusted-root %s over a policy of keys: exit %d, want 1: %s", os.DevNull, r.Code, r.Stderr)
	}
	// Without the flag, the policy's keys verify it.
	for cmd, got := range bringIn(t, signed) {
		if got.r.Code != 0 || !got.wrote {
			t.Errorf("a policy of keys: %s: exit %d (wrote: %v), want 0: %s", cmd, got.r.Code, got.wrote, got.r.Stderr)
		}
	}
}

// TestInstallAndRemoveCheckVerificationFlagsFirst: install and remove, as
// pull, copy and update do, refuse verification flags that contradict
// each other before anything else: before checking the sources or
// reading stax.yaml, so the usage error is the one the user gets, and no
// request is made.
func TestInstallAndRemoveCheckVerificationFlagsFirst(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, pub := newKeyPair(t, "acme")
	proj := t.TempDir()
	for _, args := range [][]string{
		{"install", "ghcr.io/acme/a", "ghcr.io/acme/b", "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"},
		{"remove", "ghcr.io/acme/none", "--dir", proj, "--runtime", "claude-code"},
	} {
		r := runStax(t, append(args, "--verify", "none", "--key", pub)...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "--verify none") {
			t.Errorf("stax %s --verify none --key: exit %d, %s; want 1 naming the flags", args[0], r.Code, r.Stderr)
		}
	}
}
