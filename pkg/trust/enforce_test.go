package trust

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

func TestSignersAreTheVerifiedPackages(t *testing.T) {
	t.Parallel()
	a, b := digest.FromString("a"), digest.FromString("b")
	for _, c := range []struct {
		name     string
		outcomes []Verdict
		want     map[digest.Digest]string
	}{
		{"none", nil, map[digest.Digest]string{}},
		{"unverified left out", []Verdict{{Digest: a, Verified: &signature.Verified{Signer: "acme"}}, {Digest: b}},
			map[digest.Digest]string{a: "acme"}},
	} {
		if got := Signers(c.outcomes); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPolicySigners(t *testing.T) {
	home := t.TempDir()
	write := func(path, text string) string {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	homePolicy := write(filepath.Join(home, trustpolicy.FileName), "scopes:\n  - scope: docker.io/acme\n    keys: [acme.pub]\n")
	other := write(filepath.Join(t.TempDir(), "other.yaml"), "keys: [all.pub]\n")
	bad := write(filepath.Join(t.TempDir(), "bad.yaml"), "mode: strict\n")
	for _, c := range []struct {
		name, path, ref string
		want            []string
		class           errdefs.Class
		message         string
	}{
		{name: "home policy", path: homePolicy, ref: "docker.io/acme/skills:1", want: []string{filepath.Join(home, "acme.pub")}},
		{name: "given policy", path: other, ref: "ghcr.io/x/y:1", want: []string{filepath.Join(filepath.Dir(other), "all.pub")}},
		{name: "no key", path: homePolicy, ref: "ghcr.io/x/y:1", class: errdefs.InvalidArgument, message: "list keys or identities for it in " + filepath.Join(home, trustpolicy.FileName)},
		{name: "bad policy", path: bad, ref: "ghcr.io/x/y:1", class: errdefs.InvalidArgument, message: "strict"},
	} {
		trusted, err := PolicySigners(c.path, c.ref, Trusted{})
		got := trusted.Keys
		if c.message != "" {
			if errdefs.Of(err) != c.class || !strings.Contains(err.Error(), c.message) {
				t.Errorf("%s: error %v (%v), want %v containing %q", c.name, err, errdefs.Of(err), c.class, c.message)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
}

func TestEnforceClassifiesItsErrors(t *testing.T) {
	home := t.TempDir()
	t.Setenv(store.EnvHome, home)
	for _, c := range []struct {
		name, policy string
		opts         EnforceOptions
		class        errdefs.Class
	}{
		{name: "bad mode flag", opts: EnforceOptions{Mode: "strict"}, class: errdefs.InvalidArgument},
		{name: "bad home policy", policy: "mode: maybe\n", class: errdefs.InvalidArgument},
		{name: "nothing to check", class: errdefs.Unclassified},
	} {
		if err := os.WriteFile(filepath.Join(home, trustpolicy.FileName), []byte(c.policy), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Enforce(context.Background(), nil, c.opts)
		if c.class == errdefs.Unclassified {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if errdefs.Of(err) != c.class || errors.Is(err, signature.ErrNotVerified) {
			t.Errorf("%s: %v (%v), want %v", c.name, err, errdefs.Of(err), c.class)
		}
	}
}
