package main

import (
	"github.com/stax-dev/stax/pkg/workflow"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

func TestUsageErrorsExitOne(t *testing.T) {
	t.Parallel()
	useHome(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"pack", "--no-such-flag"}, "unknown flag"},
		{[]string{"inspect"}, "accepts 1 arg"},
		{[]string{"validate", "a", "b"}, "accepts at most 1 arg"},
		{[]string{"version", "--output", "yaml"}, "--output must be"},
	}
	for _, tt := range tests {
		r := runStax(t, tt.args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tt.args, r.Code, r.Stderr, tt.want)
		}
		if r.Stdout != "" {
			t.Errorf("%v: wrote to stdout on failure: %q", tt.args, r.Stdout)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := runStax(t, "version", "--output", "json")
	var v versionInfo
	decodeJSON(t, r.Stdout, &v)
	if v.SpecVersion != "1.0.0" || v.Version == "" || v.GoVersion == "" {
		t.Errorf("version = %+v", v)
	}
	if r := runStax(t, "version"); !strings.HasPrefix(r.Stdout, "stax ") {
		t.Errorf("text version = %q", r.Stdout)
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	r := runStax(t, "completion", "bash")
	if r.Code != 0 || !strings.Contains(r.Stdout, "__start_stax") {
		t.Errorf("completion bash: exit %d, %d bytes", r.Code, len(r.Stdout))
	}
}

func TestInit(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := filepath.Join(t.TempDir(), "Team Skills")
	r := runStax(t, "init", dir, "--author", "Platform", "--tags", "a,b")
	if r.Code != 0 {
		t.Fatalf("init: %d %s", r.Code, r.Stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "stax.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"name: team-skills", "version: 0.1.0", "author: Platform", "skills: skills", "- a"} {
		if !strings.Contains(string(data), s) {
			t.Errorf("stax.yaml lacks %q:\n%s", s, data)
		}
	}
	if info, err := os.Stat(filepath.Join(dir, "skills")); err != nil || !info.IsDir() {
		t.Errorf("skills directory not created: %v", err)
	}

	r = runStax(t, "init", dir)
	if r.Code != 1 || !strings.Contains(r.Stderr, "--force") {
		t.Errorf("second init: exit %d, %q", r.Code, r.Stderr)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "stax.yaml"))
	if string(after) != string(data) {
		t.Error("a refused init changed stax.yaml")
	}
	if r = runStax(t, "init", dir, "--force", "--version", "2.0.0"); r.Code != 0 {
		t.Fatalf("init --force: %d %s", r.Code, r.Stderr)
	}
	after, _ = os.ReadFile(filepath.Join(dir, "stax.yaml"))
	if !strings.Contains(string(after), "version: 2.0.0") {
		t.Errorf("--force did not rewrite:\n%s", after)
	}

	// An empty package packs: no skills yet is an empty artifact.
	r = runStax(t, "pack", dir, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("pack of an empty package: %d %s", r.Code, r.Stderr)
	}
	var empty workflow.PackResult
	decodeJSON(t, r.Stdout, &empty)
	if len(empty.Layers) != 1 || empty.Layers[0].MediaType != "application/vnd.oci.empty.v1+json" || empty.Skills != 0 {
		t.Errorf("an empty package's layers: %+v", empty.Layers)
	}
	r = runStax(t, "init", t.TempDir(), "--version", "not a tag")
	if r.Code != 1 || !strings.Contains(r.Stderr, "OCI tag") {
		t.Errorf("bad version: exit %d %q", r.Code, r.Stderr)
	}
}

func TestDefinitionErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := t.TempDir()
	filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: ok\nversion: 1.0.0\nauthr: typo\n")
	r := runStax(t, "pack", dir)
	if r.Code != 1 || !strings.Contains(r.Stderr, "line 3") || !strings.Contains(r.Stderr, "authr") {
		t.Errorf("exit %d, %q", r.Code, r.Stderr)
	}
}
