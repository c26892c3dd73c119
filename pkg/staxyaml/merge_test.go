package staxyaml_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/staxyaml"
)

// A merge key (<<) is read in install, in a source's long form and in a
// runtime's definition as at the top level of stax.yaml, where the decoder
// takes it: the keys it brings in are the mapping's, and an unknown one
// among them is refused as one written there is.
func TestMergeKeysAreReadInEverySection(t *testing.T) {
	t.Parallel()
	body := `<<: {name: demo}
install:
  <<: {scope: user}
  sources:
    - &acme {ref: ghcr.io/acme/a, version: ^1.0.0}
    - {<<: *acme, ref: ghcr.io/acme/b}
  runtimes:
    - &zed {name: zed-agent, project: .zed/skills, user: .config/zed/skills}
    - {<<: *zed, name: zed-other, project: .zed/other}
`
	def, err := staxyaml.Parse("stax.yaml", []byte(body))
	if err != nil {
		t.Fatalf("a stax.yaml with merge keys: %v", err)
	}
	if def.Name != "demo" || def.Install.Scope != "user" {
		t.Errorf("name %q, install.scope %q: want demo and user, merged in", def.Name, def.Install.Scope)
	}
	if s := def.Install.Sources; len(s) != 2 || s[1].Ref != "ghcr.io/acme/b" || s[1].Version != "^1.0.0" {
		t.Errorf("sources %+v: want the second with the first's version", s)
	}
	if got := def.Install.Runtimes; !slices.Equal(got, []string{"zed-agent", "zed-other"}) || def.Install.Defined[1].User != ".config/zed/skills" {
		t.Errorf("runtimes %v, defined %+v: want zed-other with zed-agent's user folder", got, def.Install.Defined)
	}

	for _, bad := range []string{
		"<<: {nmae: demo}\n",
		"install:\n  <<: {scoep: user}\n",
		"install:\n  sources:\n    - {<<: {rfe: ghcr.io/acme/a}, ref: ghcr.io/acme/b}\n",
		"install:\n  runtimes:\n    - {<<: {usr: .x/skills}, name: zed, project: .zed/skills, user: .zed/skills}\n",
		// Only << merges: another key tagged !!merge is a key, as the
		// decoder reads it.
		"!!merge nmae: {name: demo}\n",
		"install:\n  !!merge scoep: {scope: user}\n",
		"install:\n  sources:\n    - {!!merge rfe: {ref: ghcr.io/acme/a}, ref: ghcr.io/acme/b}\n",
		"install:\n  runtimes:\n    - {!!merge usr: {user: .x/skills}, name: zed, project: .zed/skills, user: .zed/skills}\n",
	} {
		if _, err := staxyaml.Parse("stax.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("%q: %v, want the merged key refused as unknown", bad, err)
		}
	}
}

// A merge that names the mapping it is in, an alias to its own anchor, is
// refused as the decoder refuses it, in every section whose keys are
// checked by hand: reading the keys it merges in follows each mapping
// once, and does not recurse until the stack runs out.
func TestARecursiveMergeIsRefused(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"install: &a\n  <<: *a\n",
		"install:\n  sources:\n    - &a {<<: *a, ref: ghcr.io/acme/a}\n",
		"install:\n  runtimes:\n    - &a {<<: [*a], name: zed, project: .zed/skills, user: .zed/skills}\n",
	} {
		if _, err := staxyaml.Parse("stax.yaml", []byte(body)); err == nil {
			t.Errorf("%q: parsed, want the recursive merge refused", body)
		}
	}
}
