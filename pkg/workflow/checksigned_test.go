package workflow

import (
	"context"
	"errors"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/trust"
)

// checkSigned opens packages only for skills that came from one, and
// skips a package no key is trusted for.
func TestCheckSignedChecksOnlyPackagesAKeyIsTrustedFor(t *testing.T) {
	noPolicy := t.TempDir() + "/none.yaml"
	errOpened := errors.New("opened")
	opened := func() (trust.Source, int64, error) { return nil, 0, errOpened }
	built := t.TempDir()
	for _, c := range []struct {
		name    string
		skills  map[string]install.InstalledSkill
		wantErr error
	}{
		{"nothing installed", nil, nil},
		{"built from a directory", map[string]install.InstalledSkill{"a": {Package: built}}, nil},
		{"not a reference", map[string]install.InstalledSkill{"a": {Package: "../Skills Dir"}}, nil},
		{"from a package", map[string]install.InstalledSkill{"a": {Package: "ghcr.io/acme/skills:1", PackageDigest: digest.FromString("p")}}, errOpened},
	} {
		rec := &install.Record{Skills: c.skills}
		_, err := checkSigned(context.Background(), t.TempDir(), rec, signedOptions{Policy: noPolicy, Open: opened})
		if !errors.Is(err, c.wantErr) {
			t.Errorf("%s: %v, want %v", c.name, err, c.wantErr)
		}
	}
	// A package with no trusted key is left to the install record.
	open := func() (trust.Source, int64, error) { return nil, 0, nil }
	rec := &install.Record{Skills: map[string]install.InstalledSkill{"a": {Package: "ghcr.io/acme/skills:1"}}}
	drift, err := checkSigned(context.Background(), t.TempDir(), rec, signedOptions{Policy: noPolicy, Open: open})
	if err != nil || drift != nil {
		t.Fatalf("no key: %v %v", drift, err)
	}
}
