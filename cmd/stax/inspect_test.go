package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/workflow"
)

func TestInspectListsEverySkillWithFrontmatter(t *testing.T) {
	t.Parallel()
	useHome(t)
	if r := runStax(t, "pack", examples); r.Code != 0 {
		t.Fatalf("pack: %s", r.Stderr)
	}
	r := runStax(t, "inspect", "example-skills:1.0.0", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("inspect: %d %s", r.Code, r.Stderr)
	}
	var out workflow.InspectResult
	decodeJSON(t, r.Stdout, &out)

	want := map[string]struct {
		version string
		files   int
		field   string
	}{
		"fix-issue":           {"1.4.0", 1, "model"},
		"incident-postmortem": {"1.3.2", 4, "argument-hint"},
		"review-pr":           {"2.1.0", 4, "allowed-tools"},
		"write-changelog":     {"0.3.0", 1, "compatibility"},
	}
	if len(out.Skills) != len(want) {
		t.Fatalf("%d skills, want %d", len(out.Skills), len(want))
	}
	for _, s := range out.Skills {
		w, ok := want[s.Name]
		if !ok {
			t.Errorf("unexpected skill %q", s.Name)
			continue
		}
		if s.Version != w.version || s.Files != w.files || s.Verified == nil || !*s.Verified || s.Path != s.Name {
			t.Errorf("%s: version %q files %d verified %v path %q", s.Name, s.Version, s.Files, s.Verified, s.Path)
		}
		if s.Frontmatter["name"] != s.Name || s.Frontmatter[w.field] == nil {
			t.Errorf("%s: frontmatter %v lacks %s", s.Name, s.Frontmatter, w.field)
		}
	}

	ann := out.Manifest.Annotations
	for k, v := range map[string]string{
		"org.opencontainers.image.version":     "1.0.0",
		"org.opencontainers.image.title":       "example-skills",
		"org.opencontainers.image.description": "Example engineering skills for coding agents",
		"org.opencontainers.image.vendor":      "stax maintainers",
		"dev.stax.spec.version":                "1.0.0",
	} {
		if ann[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, ann[k], v)
		}
	}
	if out.Manifest.Config.MediaType != artifact.MediaTypeConfig || out.Config.Kind != "package" || out.Config.SpecVersion != "1.0.0" {
		t.Errorf("config = %s %+v", out.Manifest.Config.MediaType, out.Config)
	}

	text := runStax(t, "inspect", "example-skills:1.0.0")
	for _, s := range []string{"Skills (4):", "review-pr 2.1.0", "verified", "dev.stax.skills.count: 4", "allowed-tools:"} {
		if !strings.Contains(text.Stdout, s) {
			t.Errorf("text output lacks %q:\n%s", s, text.Stdout)
		}
	}
}

func TestConfigIsCanonicalJSON(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	r := runStax(t, "pack", examples, "--output", "json")
	var packed workflow.PackResult
	decodeJSON(t, r.Stdout, &packed)
	r = runStax(t, "inspect", packed.Reference, "--output", "json")
	var out workflow.InspectResult
	decodeJSON(t, r.Stdout, &out)
	cfgDigest := out.Manifest.Config.Digest
	raw, err := os.ReadFile(filepath.Join(home, "store", "blobs", "sha256", cfgDigest.Encoded()))
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	again, err := artifact.Canonical(generic)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(raw) {
		t.Errorf("config is not canonical:\n%s\nwant\n%s", raw, again)
	}
	for _, s := range []string{`"adapter":{}`, `"kind":"package"`, `"specVersion":"1.0.0"`} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("config lacks %s: %s", s, raw)
		}
	}
}

func TestInspectDirectoryMatchesPack(t *testing.T) {
	t.Parallel()
	useHome(t)
	r := runStax(t, "pack", examples)
	packed := strings.TrimSpace(r.Stdout)
	r = runStax(t, "inspect", examples, "--output", "json")
	var out workflow.InspectResult
	decodeJSON(t, r.Stdout, &out)
	if out.Descriptor.Digest.String() != packed {
		t.Errorf("inspect DIR digest %s, pack digest %s", out.Descriptor.Digest, packed)
	}
}

func TestInspectErrors(t *testing.T) {
	t.Parallel()
	useHome(t)
	tests := []struct {
		ref  string
		code int
		want string
	}{
		// A registry reference is the registry's to resolve: a closed loopback port.
		{"127.0.0.1:9/nothing:1.0", 3, "cannot reach 127.0.0.1:9"},
		{"oci:/does/not/exist", 2, "no OCI layout at /does/not/exist"},
		{"Upper/Case", 1, "lowercase"},
	}
	for _, tt := range tests {
		r := runStax(t, "inspect", tt.ref)
		if r.Code != tt.code || !strings.Contains(r.Stderr, tt.want) {
			t.Errorf("inspect %s: exit %d, %q; want %d, %q", tt.ref, r.Code, r.Stderr, tt.code, tt.want)
		}
	}
}
