package main

import (
	"github.com/stax-dev/stax/pkg/workflow"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// The reported case, published: top2 declares [d2, d1b] and d1b depends on
// t; d2 and t both hold "shared". t is transitive to top2, so d2's wins,
// whether top2 is pulled or installed.
func TestPublishedPackageLayersItsOwnDependencies(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	root := t.TempDir()
	ref := func(name string) string { return reg.Host + "/acme/" + name + ":1.0.0" }
	publish := func(name string, deps []string, skills ...string) {
		t.Helper()
		dir := filepath.Join(root, name)
		def := "name: " + name + "\nversion: 1.0.0\n"
		if len(deps) > 0 {
			def += "packages:\n"
			for _, d := range deps {
				def += "  - " + ref(d) + "\n"
			}
		}
		filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), def)
		files := map[string]string{}
		for _, s := range skills {
			files[s+"/SKILL.md"] = skillMD(s, "From "+name+".")
		}
		writeSkillFiles(t, filepath.Join(dir, "skills"), files)
		if r := runStax(t, "push", dir, ref(name)); r.Code != 0 {
			t.Fatalf("push %s: %s", name, r.Stderr)
		}
	}
	publish("t", nil, "shared", "t-only")
	publish("d2", nil, "shared")
	publish("d1b", []string{"t"}, "d1b-only")
	publish("top2", []string{"d2", "d1b"}, "top-only")
	wantOverride := "skill shared: " + ref("d2") + " (direct, 1st) over " + ref("t") + " (transitive via " + ref("d1b") + ")"

	out := filepath.Join(t.TempDir(), "out")
	r := runStax(t, "pull", ref("top2"), "-o", out)
	if r.Code != 0 {
		t.Fatalf("pull: %d %s", r.Code, r.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(out, "shared", "SKILL.md")); !strings.Contains(string(data), "From d2.") {
		t.Errorf("pull: shared is not d2's:\n%s", data)
	}
	if !strings.Contains(r.Stderr, wantOverride) {
		t.Errorf("pull: override report lacks %q:\n%s", wantOverride, r.Stderr)
	}

	project := filepath.Join(root, "project")
	filetest.WriteFile(t, filepath.Join(project, "stax.yaml"), "name: project\nversion: 0.1.0\n")
	r = runStax(t, "install", ref("top2"), "--dir", project, "--runtime", "claude-code", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	var res workflow.InstallResult
	decodeJSON(t, r.Stdout, &res)
	if data, _ := os.ReadFile(filepath.Join(project, ".claude", "skills", "shared", "SKILL.md")); !strings.Contains(string(data), "From d2.") {
		t.Errorf("install: shared is not d2's:\n%s", data)
	}
	if strings.Join(res.Overrides, "\n") != wantOverride {
		t.Errorf("install overrides:\n%s\nwant\n%s", strings.Join(res.Overrides, "\n"), wantOverride)
	}
}

// The worked example of docs/layering-and-install.md: org ← base, and a
// project declaring [base, team], installed; the override report names
// each rule.
func TestReadmePrecedenceExample(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	root := t.TempDir()
	ref := func(name, version string) string { return reg.Host + "/acme/" + name + ":" + version }
	publish := func(name, version, deps string, skills ...string) {
		t.Helper()
		dir := filepath.Join(root, name)
		filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: "+name+"\nversion: "+version+"\n"+deps)
		files := map[string]string{}
		for _, s := range skills {
			files[s+"/SKILL.md"] = skillMD(s, "From "+name+".")
		}
		writeSkillFiles(t, filepath.Join(dir, "skills"), files)
		if r := runStax(t, "push", dir, ref(name, version)); r.Code != 0 {
			t.Fatalf("push %s: %s", name, r.Stderr)
		}
	}
	org, base, team := ref("org-skills", "2.0.0"), ref("base-skills", "1.0.0"), ref("team-skills", "1.4.0")
	publish("org-skills", "2.0.0", "", "review-pr", "deploy", "lint")
	publish("base-skills", "1.0.0", "packages: ["+org+"]\n", "onboarding")
	publish("team-skills", "1.4.0", "", "review-pr", "onboarding")
	project := filepath.Join(root, "project")
	filetest.WriteFile(t, filepath.Join(project, "stax.yaml"), "name: project\nversion: 0.1.0\npackages:\n  - "+base+"\n  - "+team+
		"\ninstall: {sources: [\".\"], runtimes: [claude-code]}\n")
	writeSkillFiles(t, filepath.Join(project, "skills"), map[string]string{"deploy/SKILL.md": skillMD("deploy", "From the project.")})

	r := runStax(t, "install", "--dir", project)
	if r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	want := "warning: skill onboarding: " + team + " (direct, 2nd) over " + base + " (direct, 1st)\n" +
		"warning: skill review-pr: " + team + " (direct, 2nd) over " + org + " (transitive via " + base + ")\n" +
		"warning: skill deploy: . (own content) over " + org + " (transitive via " + base + ")\n"
	if !strings.Contains(r.Stderr, want) {
		t.Errorf("report:\n%s\nwant\n%s", r.Stderr, want)
	}
}
