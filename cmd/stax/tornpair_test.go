package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// A stax.yaml that asks for another range than its stax.lock was resolved
// for (an update --latest killed between them, by a stax that wrote them
// apart, left ^1.0.0 beside a lock and folders at 2.0.0) is named by
// verify --installed, which exits 6 rather than saying "verified", as
// install --frozen refuses it (exit 4).
func TestVerifyInstalledNamesATornPair(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	proj, _, _ := publishedProject(t, reg)
	if r := runStax(t, "update", "--latest", "--dir", proj); r.Code != 0 {
		t.Fatalf("update --latest: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 0 {
		t.Fatalf("verify --installed after update --latest: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	yaml := filepath.Join(proj, "stax.yaml")
	updated := readFile(t, yaml)
	if !strings.Contains(updated, "^2.0.0") {
		t.Fatalf("update --latest left stax.yaml:\n%s", updated)
	}
	if err := os.WriteFile(yaml, []byte(strings.Replace(updated, "^2.0.0", "^1.0.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "verify", "--installed", "--dir", proj)
	if r.Code != 6 || !strings.Contains(r.Stdout, "stax.lock: not what stax.yaml asks for") || !strings.Contains(r.Stdout, `"^1.0.0"`) {
		t.Errorf("verify --installed of a torn pair: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "install", "--frozen", "--dir", proj); r.Code != 4 {
		t.Errorf("install --frozen of a torn pair: exit %d\n%s", r.Code, r.Stderr)
	}
}
