package install

import (
	"context"
	"errors"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/trust"
)

// CheckSigned opens packages only for skills that came from one, and
// skips a package no key is trusted for.
func TestCheckSignedChecksOnlyPackagesAKeyIsTrustedFor(t *testing.T) {
	noPolicy := t.TempDir() + "/none.yaml"
	errOpened := errors.New("opened")
	opened := func() (trust.Source, int64, error) { return nil, 0, errOpened }
	built := t.TempDir()
	for _, c := range []struct {
		name    string
		skills  map[string]InstalledSkill
		wantErr error
	}{
		{"nothing installed", nil, nil},
		{"built from a directory", map[string]InstalledSkill{"a": {Package: built}}, nil},
		{"not a reference", map[string]InstalledSkill{"a": {Package: "../Skills Dir"}}, nil},
		{"from a package", map[string]InstalledSkill{"a": {Package: "ghcr.io/acme/skills:1", PackageDigest: digest.FromString("p")}}, errOpened},
	} {
		rec := &Record{Skills: c.skills}
		_, err := CheckSigned(context.Background(), t.TempDir(), rec, SignedOptions{Policy: noPolicy, Open: opened})
		if !errors.Is(err, c.wantErr) {
			t.Errorf("%s: %v, want %v", c.name, err, c.wantErr)
		}
	}
	// A package with no trusted key is left to the install record.
	open := func() (trust.Source, int64, error) { return nil, 0, nil }
	rec := &Record{Skills: map[string]InstalledSkill{"a": {Package: "ghcr.io/acme/skills:1"}}}
	drift, err := CheckSigned(context.Background(), t.TempDir(), rec, SignedOptions{Policy: noPolicy, Open: open})
	if err != nil || drift != nil {
		t.Fatalf("no key: %v %v", drift, err)
	}
}
