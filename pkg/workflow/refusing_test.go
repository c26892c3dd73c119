package workflow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/store"
)

// A package is fetched ahead only when no name it is checked or fetched
// by is in a scope that requires its signature: a dependency is fetched
// by its reference pinned to its digest and checked by its reference, a
// lock's pin likewise, and a scope may name a tag or a digest.
func TestRefusingCoversEveryNameOfAPackage(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	base := digest.FromString("base")
	policy := "scopes:\n  - scope: reg.example/acme\n    mode: require\n" +
		"  - scope: reg.example/acme/base:1@" + base.String() + "\n    mode: none\n" +
		"  - scope: reg.example/acme/tools:2\n    mode: none\n"
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	env := &Env{Getenv: func(key string) string {
		if key == store.EnvHome {
			return home
		}
		return ""
	}}
	refusing := env.refusing(Verification{}, nil)
	tests := map[string]bool{
		"reg.example/acme/base:1@" + base.String():   true, // checked as reg.example/acme/base:1
		"reg.example/acme/base:1":                    true,
		"reg.example/acme/tools:2":                   true, // the repository is required
		"reg.example/other/tools:2":                  false,
		"reg.example/other/tools:2@" + base.String(): false,
	}
	for decl, want := range tests {
		d, err := declaration.Parse(decl, declaration.Where{})
		if err != nil {
			t.Fatal(err)
		}
		if got := refusing(d, base); got != want {
			t.Errorf("refusing(%s) = %v, want %v", decl, got, want)
		}
	}
}

// A trust policy that cannot be read fetches nothing ahead, and leaves
// the error to the check, where it was reported before.
func TestRefusingABrokenPolicyRefusesEverything(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("mode: sometimes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := &Env{Getenv: func(key string) string {
		if key == store.EnvHome {
			return home
		}
		return ""
	}}
	d, err := declaration.Parse("reg.example/other/tools:2", declaration.Where{})
	if err != nil {
		t.Fatal(err)
	}
	if !env.refusing(Verification{}, nil)(d, digest.FromString("x")) {
		t.Error("a package was admitted ahead under a policy that cannot be read")
	}
}
