package trustpolicy

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// loadPolicy writes policy as the trust policy file of dir and loads it.
func loadPolicy(t *testing.T, dir, policy string) *Policy {
	t.Helper()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRulePicksTheMostSpecificScope(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	policy := "mode: warn\nkeys: [default.pub]\nscopes:\n" +
		"  - scope: ghcr.io/acme\n    mode: require\n    keys: [acme.pub]\n" +
		"  - scope: ghcr.io/acme/experiments\n    mode: none\n" +
		"  - scope: ghcr.io/acme/skills\n    keys: [/abs/skills.pub]\n"
	p := loadPolicy(t, dir, policy)
	for _, c := range []struct {
		ref  string
		want Rule
	}{
		{"ghcr.io/acme/tools:1.0.0", Rule{ModeRequire, []string{filepath.Join(dir, "acme.pub")}}},
		{"ghcr.io/acme/experiments:1", Rule{ModeNone, []string{filepath.Join(dir, "acme.pub")}}},
		// A scope without a mode takes the enclosing scope's.
		{"ghcr.io/acme/skills@sha256:00", Rule{ModeRequire, []string{"/abs/skills.pub"}}},
		// A prefix that is not a path segment does not cover.
		{"ghcr.io/acmeco/skills:1", Rule{ModeWarn, []string{filepath.Join(dir, "default.pub")}}},
		{"docker.io/other/skills:1", Rule{ModeWarn, []string{filepath.Join(dir, "default.pub")}}},
	} {
		if got := p.Rule(c.ref); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.ref, got, c.want)
		}
	}
}

func TestMergeLetsTheProjectOverride(t *testing.T) {
	t.Parallel()
	home := &Policy{Mode: ModeRequire, Keys: []string{"home.pub"}, Dir: "/home", Scopes: []Scope{{Scope: "ghcr.io/acme", Mode: ModeRequire}}}
	project := &Policy{Dir: "/proj", Keys: []string{"proj.pub"}, Scopes: []Scope{{Scope: "ghcr.io/acme", Mode: ModeWarn}}}
	m := Merge(home, project)
	if r := m.Rule("ghcr.io/acme/x:1"); r.Mode != ModeWarn || !reflect.DeepEqual(r.Keys, []string{"/proj/proj.pub", "/home/home.pub"}) {
		t.Fatalf("rule %+v", r)
	}
	if r := m.Rule("quay.io/x:1"); r.Mode != ModeRequire {
		t.Fatalf("default %+v", r)
	}
}

func TestLoadRefusesUnknownModes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	for _, bad := range []string{"mode: strict\n", "scopes:\n  - scope: x\n    mode: maybe\n", "mdoe: none\n", "scopes:\n  - mode: none\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
	p, err := Load(filepath.Join(t.TempDir(), "missing.yaml"))
	if err != nil || p.Rule("x").Mode != ModeNone {
		t.Fatalf("a missing policy must check nothing: %+v %v", p, err)
	}
}

func TestScopeNameIsTheFullReference(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ ref, want string }{
		{"acme/skills:1.0.0", "docker.io/acme/skills:1.0.0"},
		{"ghcr.io/acme/skills:1.0.0", "ghcr.io/acme/skills:1.0.0"},
		{"localhost:5000/skills@sha256:" + strings.Repeat("a", 64), "localhost:5000/skills@sha256:" + strings.Repeat("a", 64)},
		// Not a reference (a directory a package was built from): itself.
		{"/tmp/Skills Dir", "/tmp/Skills Dir"},
	} {
		if got := ScopeName(c.ref); got != c.want {
			t.Errorf("ScopeName(%q) = %q, want %q", c.ref, got, c.want)
		}
	}
}

// TestScopeRequiresAnIdentity reads a scope that trusts a keyless signer
// (a GitHub Actions workflow identity) against a trusted root: its
// signers replace the default keys there, and elsewhere the default keys
// still apply.
func TestScopeRequiresAnIdentity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	policy := "mode: warn\nkeys: [default.pub]\ntrustedRoot: trusted_root.json\nscopes:\n" +
		"  - scope: ghcr.io/acme\n    mode: require\n    identities:\n" +
		"      - issuer: https://token.actions.githubusercontent.com\n        subjectRegExp: '^https://github.com/acme/.*'\n" +
		"  - scope: ghcr.io/acme/keyed\n    keys: [acme.pub]\n"
	p := loadPolicy(t, dir, policy)
	actions := []Identity{{Issuer: "https://token.actions.githubusercontent.com", SubjectRegExp: "^https://github.com/acme/.*"}}
	root := filepath.Join(dir, "trusted_root.json")
	for _, c := range []struct {
		ref  string
		keys []string
		want Keyless
	}{
		{"ghcr.io/acme/skills:1", []string{}, Keyless{Identities: actions, TrustedRoot: root}},
		{"ghcr.io/acme/keyed:1", []string{filepath.Join(dir, "acme.pub")}, Keyless{TrustedRoot: root}},
		{"docker.io/x/y:1", []string{filepath.Join(dir, "default.pub")}, Keyless{TrustedRoot: root}},
	} {
		if got := p.Rule(c.ref); !reflect.DeepEqual(got.Keys, c.keys) {
			t.Errorf("%s: keys %v, want %v", c.ref, got.Keys, c.keys)
		}
		if got := p.Keyless(c.ref); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.ref, got, c.want)
		}
	}
	// A project's policy lays its trusted root over the user's.
	m := Merge(p, &Policy{Dir: "/proj", TrustedRoot: "root.json"})
	if got := m.Keyless("ghcr.io/acme/skills:1"); got.TrustedRoot != "/proj/root.json" || !reflect.DeepEqual(got.Identities, actions) {
		t.Fatalf("merged %+v", got)
	}
}

func TestLoadRefusesIncompleteIdentities(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	for _, bad := range []string{
		"identities: [{issuer: https://accounts.google.com}]\n",
		"identities: [{subject: me@example.com}]\n",
		"scopes:\n  - scope: x\n    identities: [{issuerRegExp: '(', subject: me@example.com}]\n",
		"identities: [{issuer: https://accounts.google.com, subject: me@example.com, san: x}]\n",
	} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
}

// A scope takes what it does not name from the scopes enclosing it
// wherever they are in the file: the order of the scopes does not matter.
func TestRuleDoesNotDependOnTheOrderOfScopes(t *testing.T) {
	t.Parallel()
	scopes := []string{
		"  - scope: ghcr.io/acme\n    mode: require\n    keys: [acme.pub]\n",
		"  - scope: ghcr.io/acme/skills\n    keys: [skills.pub]\n",
		"  - scope: ghcr.io/acme/skills/memory\n    trustedRoot: root.json\n",
	}
	rules := map[string]Rule{}
	path := filepath.Join(t.TempDir(), FileName)
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
		policy := "mode: warn\nscopes:\n"
		for _, i := range order {
			policy += scopes[i]
		}
		if err := os.WriteFile(path, []byte(policy), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range []string{"ghcr.io/acme/tools:1", "ghcr.io/acme/skills:1", "ghcr.io/acme/skills/memory:1"} {
			got := p.Rule(ref)
			if want, seen := rules[ref]; seen && !reflect.DeepEqual(got, want) {
				t.Errorf("scopes in the order %v: %s is %+v, in the first order %+v", order, ref, got, want)
			}
			rules[ref] = got
		}
	}
	if got := rules["ghcr.io/acme/skills/memory:1"]; got.Mode != ModeRequire || len(got.Keys) != 1 || filepath.Base(got.Keys[0]) != "skills.pub" {
		t.Errorf("the innermost scope is %+v, want require with skills.pub from the scopes enclosing it", got)
	}
}

// A mistyped key of the policy file is named with its line and the key
// meant, in the words of the file, not of the Go type it is read into.
func TestLoadSuggestsTheKeyMeant(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("mode: require\nscopes:\n  - scope: ghcr.io/acme\n    keyz: [acme.pub]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + `: line 4: unknown key "keyz" in an item of scopes: did you mean keys?`
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "trustpolicy.") {
		t.Errorf("Load: %v\nwant %s…", err, want)
	}
}
