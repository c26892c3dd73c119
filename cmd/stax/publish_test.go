package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// A package that depends on a directory is never published: nobody could
// install it. With the reference beside the path, --push-dependencies
// publishes the directory first and records its reference.
func TestPushRefusesPathDependencies(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	root := t.TempDir()
	dep := filepath.Join(root, "p41")
	filetest.WriteFile(t, filepath.Join(dep, "stax.yaml"), "name: p41\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(dep, "skills"), map[string]string{"base/SKILL.md": skillMD("base", "From p41.")})
	top := filepath.Join(root, "top")
	filetest.WriteFile(t, filepath.Join(top, "stax.yaml"), "name: top\nversion: 1.0.0\npackages: [../p41]\n")
	writeSkillFiles(t, filepath.Join(top, "skills"), map[string]string{"top/SKILL.md": skillMD("top", "From top.")})
	topRef, depRef := reg.Host+"/acme/top:1.0.0", reg.Host+"/acme/p41:1.0.0"

	r := runStax(t, "push", top, topRef)
	if r.Code != 4 || !strings.Contains(r.Stderr, "top depends on the directory ../p41") || !strings.Contains(r.Stderr, "--push-dependencies") {
		t.Errorf("push with a path dependency: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", "--remote", topRef); r.Code == 0 {
		t.Errorf("the refused package reached the registry: %s", r.Stdout)
	}
	// A package packed in the checkout records the path; pushing it from
	// the store is refused the same way.
	if r := runStax(t, "pack", top, "-t", "top:1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if r := runStax(t, "push", "top:1.0.0", topRef); r.Code != 4 || !strings.Contains(r.Stderr, "depends on the directory ../p41") {
		t.Errorf("push of a stored package with a path dependency: exit %d\n%s", r.Code, r.Stderr)
	}

	filetest.WriteFile(t, filepath.Join(top, "stax.yaml"), "name: top\nversion: 1.0.0\npackages:\n  - path: ../p41\n    ref: "+depRef+"\n")
	// The reference is what gets recorded: unpublished, the push fails
	// and says how to publish it.
	if r := runStax(t, "push", top, topRef); r.Code == 0 || !strings.Contains(r.Stderr, depRef+" is the published reference of ../p41: publish it first, or push with --push-dependencies") {
		t.Errorf("push before the dependency is published: exit %d\n%s", r.Code, r.Stderr)
	}
	r = runStax(t, "push", top, topRef, "--push-dependencies")
	if r.Code != 0 {
		t.Fatalf("push --push-dependencies: %d %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "Pushed dependency "+dep+" as "+depRef+"@sha256:") {
		t.Errorf("the dependency push is not reported:\n%s", r.Stderr)
	}
	r = runStax(t, "inspect", topRef, "--remote", "--output", "json")
	if r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if strings.Contains(r.Stdout, "../p41") || !strings.Contains(r.Stdout, depRef) {
		t.Errorf("the published config names a path or lacks the reference:\n%s", r.Stdout)
	}
	// A consumer installs it.
	out := filepath.Join(t.TempDir(), "out")
	if r := runStax(t, "pull", topRef, "-o", out); r.Code != 0 {
		t.Fatalf("pull the published package: %d %s", r.Code, r.Stderr)
	}
	for _, s := range []string{"base", "top"} {
		if _, err := os.Stat(filepath.Join(out, s, "SKILL.md")); err != nil {
			t.Errorf("pulled package lacks %s: %v", s, err)
		}
	}
	// The checkout still resolves the directory.
	writeSkillFiles(t, filepath.Join(dep, "skills"), map[string]string{"base/SKILL.md": skillMD("base", "Edited in the checkout.")})
	out2 := filepath.Join(t.TempDir(), "out")
	if r := runStax(t, "pull", top, "-o", out2); r.Code != 0 {
		t.Fatalf("pull the checkout: %d %s", r.Code, r.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(out2, "base", "SKILL.md")); !strings.Contains(string(data), "Edited in the checkout.") {
		t.Errorf("the checkout did not resolve the directory:\n%s", data)
	}
}
