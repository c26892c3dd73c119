package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/lock"
)

// refImplAgent pushes to reg, as the reference implementation writes
// them, a package of two skills (acme/base:1) and an agent artifact of two
// skills, rules, a prompt and MCP server configs that depends on it by tag
// only (acme/agent:1). It returns the agent's reference and the base's
// digest.
func refImplAgent(t *testing.T, reg *registrytest.Registry) (string, digest.Digest) {
	t.Helper()
	base := packagetest.RefImpl{Name: "base", Version: "1.0.0", Skills: map[string]string{
		"lint/SKILL.md": packagetest.Skill("lint"), "test/SKILL.md": packagetest.Skill("test"),
	}}.Push(t, reg.Host+"/acme/base:1")
	ref := reg.Host + "/acme/agent:1"
	packagetest.RefImpl{
		Name: "agent", Version: "1.0.0",
		Skills: map[string]string{
			"deploy/SKILL.md": packagetest.Skill("deploy"), "review/SKILL.md": packagetest.Skill("review"),
		},
		Dependencies: []string{reg.Host + "/acme/base:1"},
		Layers:       []packagetest.Layer{packagetest.Rules(t), packagetest.Prompt(), packagetest.MCP()},
	}.Push(t, ref)
	return ref, base
}

// skillsIn lists the skill directories under dir.
func skillsIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "SKILL.md")); err == nil {
			names = append(names, e.Name())
		}
	}
	return names
}

// skippedWarning is the warning pull and install give, once, for a
// package with layers stax does not install.
func skippedWarning(ref, kinds string) string {
	return "warning: " + ref + " carries " + kinds + ", which stax does not install: stax installs skills only\n"
}

// install of a package the reference implementation wrote installs the
// skills of the dependency its packages layer lists by tag only, records
// the dependency by digest in stax.lock, and names, once, the layers it
// does not install; a frozen install then installs the same.
func TestInstallReferenceImplementationPackage(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref, base := refImplAgent(t, reg)
	proj := t.TempDir()

	r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code")
	if r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := skillsIn(t, filepath.Join(proj, ".claude", "skills")); strings.Join(got, ",") != "deploy,lint,review,test" {
		t.Errorf("installed %v, want the agent's two skills and the dependency's two", got)
	}
	if want := skippedWarning(ref, "rules, MCP server configs, prompt"); strings.Count(r.Stderr, want) != 1 {
		t.Errorf("stderr does not say once %q:\n%s", want, r.Stderr)
	}
	l, err := lock.Read(filepath.Join(proj, "stax.lock"))
	if err != nil {
		t.Fatal(err)
	}
	var locked bool
	for _, p := range l.Packages {
		locked = locked || p.Digest == base && p.Ref == reg.Host+"/acme/base:1"
	}
	if !locked {
		t.Errorf("stax.lock does not record %s at %s: %+v", reg.Host+"/acme/base:1", base, l.Packages)
	}
	if r := runStax(t, "install", "--frozen", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install --frozen: exit %d\n%s", r.Code, r.Stderr)
	}
}

// pull -o of the same package writes the dependency's skills too, and
// names, once, what it does not write.
func TestPullReferenceImplementationPackage(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref, _ := refImplAgent(t, reg)
	out := filepath.Join(t.TempDir(), "skills")

	r := runStax(t, "pull", ref, "-o", out)
	if r.Code != 0 {
		t.Fatalf("pull: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := skillsIn(t, out); strings.Join(got, ",") != "deploy,lint,review,test" {
		t.Errorf("pulled %v, want the agent's two skills and the dependency's two", got)
	}
	if want := skippedWarning(ref, "rules, MCP server configs, prompt"); strings.Count(r.Stderr, want) != 1 {
		t.Errorf("stderr does not say once %q:\n%s", want, r.Stderr)
	}
}

// A dependency listed by tag only that the registry does not have fails
// the pull and the install as a resolution failure naming it, and nothing
// is installed.
func TestReferenceImplementationDependencyMissing(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/agent:1"
	missing := reg.Host + "/acme/gone:1"
	packagetest.RefImpl{Name: "agent", Version: "1.0.0", Skills: map[string]string{"deploy/SKILL.md": packagetest.Skill("deploy")},
		Dependencies: []string{missing}}.Push(t, ref)
	proj := t.TempDir()
	for _, args := range [][]string{
		{"pull", ref, "-o", filepath.Join(proj, "out")},
		{"install", ref, "--dir", proj, "--runtime", "claude-code"},
	} {
		if r := runStax(t, args...); r.Code != 4 || !strings.Contains(r.Stderr, missing) {
			t.Errorf("%s: exit %d, want 4 naming %s\n%s", args[0], r.Code, missing, r.Stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude", "skills", "deploy")); err == nil {
		t.Error("install installed the package without its dependency")
	}
}

// A package of rules, a prompt and MCP server configs and no skills pulls
// and installs nothing, and says so, naming each kind it skipped.
func TestRulesPromptMCPPackageIsNamed(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/rules:1"
	packagetest.RefImpl{Name: "rules", Version: "1.0.0",
		Layers: []packagetest.Layer{packagetest.Rules(t), packagetest.Prompt(), packagetest.MCP()}}.Push(t, ref)
	want := skippedWarning(ref, "rules, MCP server configs, prompt")
	proj := t.TempDir()
	for _, args := range [][]string{
		{"pull", ref, "-o", filepath.Join(proj, "out")},
		{"install", ref, "--dir", proj, "--runtime", "claude-code"},
	} {
		if r := runStax(t, args...); r.Code != 0 || strings.Count(r.Stderr, want) != 1 {
			t.Errorf("%s: exit %d, want 0 saying once %q\n%s", args[0], r.Code, want, r.Stderr)
		}
	}
}

// inspect lists the layers stax does not install, and the skills the
// skills layer holds when the config lists none, in text and JSON, for
// the package on its registry and in the local store.
func TestInspectReferenceImplementationPackage(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/agent:1"
	packagetest.RefImpl{Name: "agent", Version: "1.0.0",
		Skills: map[string]string{"deploy/SKILL.md": packagetest.Skill("deploy"), "review/SKILL.md": packagetest.Skill("review")},
		Layers: packagetest.Agent(t)}.Push(t, ref)
	layout := "oci:" + filepath.Join(t.TempDir(), "layout") + ":1"
	if r := runStax(t, "copy", ref, layout); r.Code != 0 {
		t.Fatalf("copy: exit %d\n%s", r.Code, r.Stderr)
	}
	kinds := []string{"knowledge", "rules", "MCP server configs", "prompt", "persona", "subagents", "memory"}
	for _, at := range []string{ref, layout} {
		r := runStax(t, "inspect", at)
		if r.Code != 0 {
			t.Fatalf("inspect %s: exit %d\n%s", at, r.Code, r.Stderr)
		}
		if !strings.Contains(r.Stdout, "Skills (2):") || !strings.Contains(r.Stdout, "deploy/") || !strings.Contains(r.Stdout, "review/") {
			t.Errorf("inspect %s does not list the layer's two skills:\n%s", at, r.Stdout)
		}
		if !strings.Contains(r.Stdout, "Not installed (stax installs skills only):") {
			t.Errorf("inspect %s does not list the layers stax does not install:\n%s", at, r.Stdout)
		}
		for _, k := range kinds {
			if !strings.Contains(r.Stdout, "  "+k+" ") {
				t.Errorf("inspect %s does not list the %s layer:\n%s", at, k, r.Stdout)
			}
		}
		r = runStax(t, "--output", "json", "inspect", at)
		var res struct {
			Skills []struct {
				Path      string `json:"path"`
				FromLayer bool   `json:"fromLayer"`
			} `json:"skills"`
			NotInstalled []struct {
				Kind      string `json:"kind"`
				MediaType string `json:"mediaType"`
				Digest    string `json:"digest"`
			} `json:"notInstalled"`
		}
		decodeJSON(t, r.Stdout, &res)
		if len(res.Skills) != 2 || !res.Skills[0].FromLayer || res.Skills[0].Path != "deploy" {
			t.Errorf("inspect %s --output json: skills %+v", at, res.Skills)
		}
		var got []string
		for _, l := range res.NotInstalled {
			got = append(got, l.Kind)
			if l.MediaType == "" || l.Digest == "" {
				t.Errorf("inspect %s --output json: layer %+v", at, l)
			}
		}
		if strings.Join(got, ",") != strings.Join(kinds, ",") {
			t.Errorf("inspect %s --output json: not installed %v, want %v", at, got, kinds)
		}
	}
}

// sign accepts what pull accepts: a package whose config lists no skills
// is signed over the skills its layer holds, and verifies.
func TestSignReferenceImplementationPackage(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, pub := newKeyPair(t, "acme")
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/agent:1"
	packagetest.RefImpl{Name: "agent", Version: "1.0.0",
		Skills: map[string]string{"deploy/SKILL.md": packagetest.Skill("deploy"), "review/SKILL.md": packagetest.Skill("review")},
		Layers: packagetest.Agent(t)}.Push(t, ref)
	if r := runStax(t, "sign", ref, "--key", priv); r.Code != 0 {
		t.Fatalf("sign: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "verify", ref, "--key", pub); r.Code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "pull", ref, "-o", filepath.Join(t.TempDir(), "out"), "--verify", "require", "--key", pub); r.Code != 0 {
		t.Fatalf("pull --verify require: exit %d\n%s", r.Code, r.Stderr)
	}
}

// A malformed package is a content problem, wherever it is read from:
// sign, pull and inspect refuse it with exit 6 (content that is not what
// it says) or 5 (content stax refuses to materialize), never 3, the
// registry's code.
func TestMalformedReferenceImplementationPackage(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, _ := newKeyPair(t, "acme")
	reg := registrytest.New(t)
	for _, tc := range []struct {
		name  string
		layer packagetest.Layer
		code  int
	}{
		{"skills layer not an archive", packagetest.Layer{MediaType: "application/vnd.stax.skills.v1.tar+gzip", Data: []byte("not a layer")}, 6},
		{"packages layer not JSON", packagetest.Layer{MediaType: "application/vnd.stax.packages.v1+json", Data: []byte("[")}, 5},
	} {
		ref := reg.Host + "/acme/" + strings.ToLower(strings.ReplaceAll(tc.name, " ", "-")) + ":1"
		packagetest.RefImpl{Name: "agent", Version: "1.0.0", Layers: []packagetest.Layer{tc.layer}}.Push(t, ref)
		for _, args := range [][]string{
			{"sign", ref, "--key", priv},
			{"pull", ref, "-o", filepath.Join(t.TempDir(), "out")},
			{"inspect", ref},
		} {
			if r := runStax(t, args...); r.Code != tc.code {
				t.Errorf("%s: %s: exit %d, want %d\n%s", tc.name, args[0], r.Code, tc.code, r.Stderr)
			}
		}
	}
}

// copy --with-dependencies copies the dependency the packages layer lists
// by tag only, to its repository path and tag on the mirror, where an
// install then finds it, with the original registry gone.
func TestCopyWithDependenciesReferenceImplementationPackage(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref, base := refImplAgent(t, reg)
	mirror := registrytest.New(t)
	mirrored := mirror.Host + "/acme/agent:1"
	r := runStax(t, "copy", "--with-dependencies", ref, mirrored)
	if r.Code != 0 || !strings.Contains(r.Stderr, "Copied dependency "+reg.Host+"/acme/base:1") {
		t.Fatalf("copy --with-dependencies: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := runStax(t, "resolve", mirror.Host+"/acme/base:1"); got.Code != 0 || strings.TrimSpace(got.Stdout) != base.String() {
		t.Fatalf("the mirror's acme/base:1: exit %d %s, want %s\n%s", got.Code, got.Stdout, base, got.Stderr)
	}
	reg.Stop()
	proj := t.TempDir()
	if r := runStax(t, "install", mirrored, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install from the mirror: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := skillsIn(t, filepath.Join(proj, ".claude", "skills")); strings.Join(got, ",") != "deploy,lint,review,test" {
		t.Errorf("installed %v from the mirror", got)
	}
}
