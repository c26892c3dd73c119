package main

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/workflow"
)

// Helm writes a registry as oci://HOST/REPO:TAG; stax takes it as the
// registry reference it is, not as an OCI layout at /HOST/REPO.
func TestOCISchemeIsARegistryReference(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	strayLayout := "/" + reg.Host
	t.Cleanup(func() { os.RemoveAll(strayLayout) })

	pushed := pushExamples(t, "oci://"+reg.Host+"/acme/x:1.0.0")
	if _, err := os.Stat(strayLayout); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("push to oci://%s wrote a layout at %s on the local disk (%v)", reg.Host, strayLayout, err)
	}
	if r := runStax(t, "resolve", reg.Host+"/acme/x:1.0.0"); r.Code != 0 || strings.TrimSpace(r.Stdout) != pushed.Digest {
		t.Errorf("the registry does not hold the package pushed to oci://: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "resolve", "oci://"+reg.Host+"/acme/x:1.0.0"); r.Code != 0 || strings.TrimSpace(r.Stdout) != pushed.Digest {
		t.Errorf("resolve oci://: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
}

// A registry reference is the registry's to resolve, as with oras, crane
// and helm: after its tag moved, resolve, inspect and diff see the new
// package even though the local store still holds the old one under that
// tag. --offline reads the store.
func TestRegistryReferenceAsksTheRegistryAfterTheTagMoved(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/acme/x:1.0.0"
	first := pushExamples(t, ref)
	if r := runStax(t, "pull", ref, "-o", filepath.Join(t.TempDir(), "out")); r.Code != 0 {
		t.Fatalf("pull: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", ref); strings.TrimSpace(r.Stdout) != first.Digest {
		t.Fatalf("resolve before the tag moved: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}

	changed := copyExamples(t)
	skill := filepath.Join(changed, "skills", "review-pr", "SKILL.md")
	filetest.WriteFile(t, skill, readText(t, skill)+"\nLook at the tests first.\n")
	r := runStax(t, "push", changed, ref, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("push of the changed package: exit %d %s", r.Code, r.Stderr)
	}
	var second workflow.Transfer
	decodeJSON(t, r.Stdout, &second)
	if second.Digest == first.Digest {
		t.Fatalf("the changed package has the first one's digest %s", first.Digest)
	}

	for _, args := range [][]string{{"resolve", ref}, {"resolve", ref, "--remote"}, {"resolve", "oci://" + ref}} {
		if r := runStax(t, args...); r.Code != 0 || strings.TrimSpace(r.Stdout) != second.Digest {
			t.Errorf("%v after the tag moved: exit %d %q, want %s (the old digest is %s) %s", args, r.Code, r.Stdout, second.Digest, first.Digest, r.Stderr)
		}
	}
	r = runStax(t, "inspect", ref, "--output", "json")
	var inspected workflow.InspectResult
	decodeJSON(t, r.Stdout, &inspected)
	if inspected.Descriptor.Digest.String() != second.Digest || inspected.Source != "remote" {
		t.Errorf("inspect after the tag moved: %s from %s, want %s from the registry", inspected.Descriptor.Digest, inspected.Source, second.Digest)
	}
	if r := runStax(t, "diff", ref, changed, "--exit-code"); r.Code != 0 {
		t.Errorf("diff of the moved tag against the package it now names: exit %d %s%s", r.Code, r.Stdout, r.Stderr)
	}

	if r := runStax(t, "resolve", ref, "--offline"); r.Code != 0 || strings.TrimSpace(r.Stdout) != first.Digest {
		t.Errorf("resolve --offline: exit %d %q, want the stored %s %s", r.Code, r.Stdout, first.Digest, r.Stderr)
	}
	if r := runStax(t, "inspect", ref, "--offline", "--remote"); r.Code != 1 {
		t.Errorf("--offline with --remote: exit %d, want a usage error %s", r.Code, r.Stderr)
	}
}

// Reading a registry reference asks the registry which manifest the tag
// names, but does not download again a layer the local store holds.
func TestRegistryReadReusesTheStoresBlobs(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/acme/x:1.0.0"
	pushed := pushExamples(t, ref)
	if r := runStax(t, "pull", ref, "-o", filepath.Join(t.TempDir(), "out")); r.Code != 0 {
		t.Fatalf("pull: exit %d %s", r.Code, r.Stderr)
	}
	// Against another package, so that diff reads the layer.
	changed := copyExamples(t)
	skill := filepath.Join(changed, "skills", "review-pr", "SKILL.md")
	filetest.WriteFile(t, skill, readText(t, skill)+"\nLook at the tests first.\n")
	reg.ResetRequests()
	if r := runStax(t, "diff", ref, changed); r.Code != 0 || !strings.Contains(r.Stdout, "review-pr") {
		t.Fatalf("diff: exit %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
	asked := false
	for _, req := range reg.Requests() {
		if strings.HasSuffix(req.Path, "/manifests/1.0.0") {
			asked = true
		}
		if req.Method == http.MethodGet && strings.HasSuffix(req.Path, "/blobs/"+pushed.Layers[0].Digest.String()) {
			t.Errorf("diff downloaded the layer the local store holds: %s %s", req.Method, req.Path)
		}
	}
	if !asked {
		t.Errorf("diff did not ask the registry what the tag names: %+v", reg.Requests())
	}
}

// A name without a registry host is a tag of the local store: a mistyped
// one is an error that names the nearest tags, not a Docker Hub request.
func TestBareNameIsALocalTag(t *testing.T) {
	t.Parallel()
	useHome(t)
	if r := runStax(t, "pack", examples); r.Code != 0 { // example-skills:1.0.0
		t.Fatalf("pack: exit %d %s", r.Code, r.Stderr)
	}
	for _, args := range [][]string{
		{"resolve", "example-skils:1.0.0"},
		{"inspect", "example-skils:1.0.0"},
		{"diff", "example-skils:1.0.0", "example-skills:1.0.0"},
		{"pull", "example-skils:1.0.0", "-o", filepath.Join(t.TempDir(), "out")},
		{"install", "example-skils:1.0.0", "--dir", t.TempDir(), "--runtime", "claude"},
	} {
		r := runStax(t, args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "not in the local store") ||
			!strings.Contains(r.Stderr, "nearest local tags are example-skills:1.0.0") || strings.Contains(r.Stderr, "registry failed") {
			t.Errorf("%v: exit %d, want 1 naming the nearest local tag:\n%s", args, r.Code, r.Stderr)
		}
	}
	if r := runStax(t, "resolve", "example-skills:1.0.0"); r.Code != 0 || strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("resolve of the local tag: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	if r := runStax(t, "pull", "example-skills:1.0.0", "-o", out); r.Code != 0 {
		t.Errorf("pull of the local tag: exit %d %s", r.Code, r.Stderr)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), out)
	project := t.TempDir()
	if r := runStax(t, "install", "example-skills:1.0.0", "--dir", project, "--runtime", "claude"); r.Code != 0 {
		t.Errorf("install of the local tag: exit %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude", "skills", "review-pr", "SKILL.md")); err != nil {
		t.Errorf("install of the local tag: %v", err)
	}
}

// copy reads a name without a registry host from the local store, as
// push does; push and copy refuse one as a destination, which would be a
// Docker Hub request the user did not write.
func TestCopyAndPushTakeBareNamesAsLocalTags(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	if r := runStax(t, "pack", examples); r.Code != 0 { // example-skills:1.0.0
		t.Fatalf("pack: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "copy", "example-skills:1.0.0", reg.Host+"/acme/copied:1.0.0"); r.Code != 0 {
		t.Fatalf("copy of a local tag: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", reg.Host+"/acme/copied:1.0.0"); strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("the copy of the local tag: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "copy", "example-skils:1.0.0", reg.Host+"/acme/copied:1.0.0"); r.Code != 1 || !strings.Contains(r.Stderr, "nearest local tags are example-skills:1.0.0") {
		t.Errorf("copy of a mistyped local tag: exit %d %s", r.Code, r.Stderr)
	}
	for _, args := range [][]string{
		{"push", examples, "acme/skills:1.0.0"},
		{"copy", reg.Host + "/acme/copied:1.0.0", "acme/skills:1.0.0"},
	} {
		if r := runStax(t, args...); r.Code != 1 || !strings.Contains(r.Stderr, "names no registry") || !strings.Contains(r.Stderr, "docker.io/acme/skills:1.0.0") {
			t.Errorf("%v: exit %d, want 1 saying it names no registry: %s", args, r.Code, r.Stderr)
		}
	}
}

// copy and tags read their argument as every command does
// (declaration.Parse): a package directory, which has neither tags nor a
// stored package to copy, is refused naming it and what to do instead,
// not read as a reference with no registry.
func TestCopyAndTagsRefuseADirectory(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := filepath.Join(t.TempDir(), "skills")
	filetest.Write(t, dir, map[string]string{"stax.yaml": "name: s\nversion: 1.0.0\n"})
	for _, args := range [][]string{
		{"copy", dir, "oci:" + filepath.Join(t.TempDir(), "out") + ":1.0.0"},
		{"copy", "./skills", "localhost:5000/acme/skills:1.0.0"},
		{"tags", dir},
		{"tags", "./skills"},
	} {
		r := runStax(t, args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "names a package directory") || !strings.Contains(r.Stderr, "stax push") {
			t.Errorf("stax %s: exit %d, want 1 naming the directory and stax push\n%s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
}
