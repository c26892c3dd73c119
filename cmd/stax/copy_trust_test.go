package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// copy --with-dependencies applies the trust policy to every package it
// copies, before anything is written: with require, an unsigned
// dependency of a signed package exits 6 and the mirror gets nothing.
func TestCopyWithDependenciesVerifiesEveryPackage(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, pub := newKeyPair(t, "acme")
	l := newLayering(t)
	if r := runStax(t, "sign", l.team, "--key", priv); r.Code != 0 {
		t.Fatalf("sign: %d %s", r.Code, r.Stderr)
	}
	mirror := registrytest.New(t)
	r := runStax(t, "copy", "--with-dependencies", "--verify", "require", "--key", pub, l.team, mirror.Host+"/team/skills:1.4.0")
	if r.Code != 6 || !strings.Contains(r.Stderr, "org/skills") {
		t.Fatalf("copy of a signed package with an unsigned dependency: exit %d %s; want 6 naming org/skills", r.Code, r.Stderr)
	}
	for _, q := range mirror.Requests() {
		if q.Method != http.MethodGet && q.Method != http.MethodHead {
			t.Errorf("the mirror was written to: %s %s", q.Method, q.Path)
		}
	}

	// Signed all the way down, the copy goes through.
	if r := runStax(t, "sign", l.org, "--key", priv); r.Code != 0 {
		t.Fatalf("sign: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "copy", "--with-dependencies", "--verify", "require", "--key", pub, l.team, mirror.Host+"/team/skills:1.4.0"); r.Code != 0 {
		t.Fatalf("copy of signed packages: %d %s", r.Code, r.Stderr)
	}
}
