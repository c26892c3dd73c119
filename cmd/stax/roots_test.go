package main

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// Where the system has no roots, as in the container image, stax trusts
// the roots compiled into it from its first TLS request on, and not
// before: a command that makes none does not pay for parsing them.
func TestFallbackRootsOnFirstTLSRequest(t *testing.T) {
	// Go reads the system's roots once a process: the test runs in a
	// process of its own, whose system has none.
	none := filepath.Join(t.TempDir(), "none.pem")
	if err := os.WriteFile(none, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	noRoots := func(env []string) []string {
		return append(env, "SSL_CERT_FILE="+none, "SSL_CERT_DIR="+t.TempDir())
	}
	if !inOwnProcess(t, noRoots) {
		return
	}
	useHome(t)
	root := compiledInRoot(t)
	trusted := func() error {
		_, err := root.Verify(x509.VerifyOptions{CurrentTime: root.NotBefore.AddDate(0, 1, 0), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		return err
	}
	if r := runStax(t, "version"); r.Code != 0 {
		t.Fatalf("stax version: exit %d\n%s", r.Code, r.Stderr)
	}
	if trusted() == nil {
		t.Fatal("a root compiled into stax is trusted before any TLS request")
	}
	// Nothing listens there: the request fails, once it has set up TLS.
	if r := runStax(t, "tags", "--plain-http=false", "--timeout", "5s", "127.0.0.1:1/skills/none"); r.Code != 3 {
		t.Fatalf("stax tags of a closed port: exit %d, want 3\n%s", r.Code, r.Stderr)
	}
	if err := trusted(); err != nil {
		t.Fatalf("after a TLS request, a root compiled into stax is not trusted: %v", err)
	}
}

// compiledInRoot is the first root of the bundle stax compiles in that
// holds no constraint.
func compiledInRoot(t *testing.T) *x509.Certificate {
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		cert, err := x509.ParseCertificate(r.Certificate)
		if err != nil {
			t.Fatal(err)
		}
		return cert
	}
	t.Fatal("the bundle holds no root without a constraint")
	return nil
}
