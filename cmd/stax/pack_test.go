package main

import (
	"github.com/stax-dev/stax/pkg/workflow"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// goldenExamplesDigest is the manifest digest of `stax pack examples`. It
// changes only when the examples, the layer format or the config change;
// a toolchain upgrade must never change it.
const goldenExamplesDigest = "sha256:d8b5335bb8f8fc9684d32c07ab1dfd9dddb4db231bf55c3f8612c4236fe545a6"

func TestPackIsReproducible(t *testing.T) {
	t.Parallel()
	copied := filepath.Join(t.TempDir(), "elsewhere", "examples")
	copyTree(t, examples, copied)

	var digests []string
	for _, dir := range []string{examples, examples, copied} {
		useHome(t)
		r := runStax(t, "pack", dir)
		if r.Code != 0 {
			t.Fatalf("pack %s: exit %d\n%s", dir, r.Code, r.Stderr)
		}
		digests = append(digests, strings.TrimSpace(r.Stdout))
	}
	for i, d := range digests {
		if d != goldenExamplesDigest {
			t.Errorf("build %d: digest %s, want golden %s", i, d, goldenExamplesDigest)
		}
	}
}

func TestPackTagsAndStores(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	r := runStax(t, "pack", examples, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var out workflow.PackResult
	decodeJSON(t, r.Stdout, &out)
	if out.Reference != "example-skills:1.0.0" || out.Skills != 4 || len(out.Layers) != 1 {
		t.Fatalf("pack result = %+v", out)
	}
	if out.ArtifactType != "application/vnd.stax.package.v1" || out.MediaType != "application/vnd.oci.image.manifest.v1+json" {
		t.Errorf("types = %s / %s", out.ArtifactType, out.MediaType)
	}
	layer := out.Layers[0]
	if layer.MediaType != "application/vnd.stax.skills.v1.tar+gzip" ||
		layer.Annotations["dev.stax.skills.count"] != "4" ||
		layer.Annotations["org.opencontainers.image.title"] != "skills.tar.gz" {
		t.Errorf("layer = %+v", layer)
	}
	index, err := os.ReadFile(filepath.Join(home, "store", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), `"org.opencontainers.image.ref.name":"example-skills:1.0.0"`) {
		t.Errorf("local store index does not hold the tag:\n%s", index)
	}

	r = runStax(t, "pack", examples, "-t", "acme/skills")
	if r.Code != 0 || !strings.Contains(r.Stderr, "as acme/skills:1.0.0") {
		t.Errorf("-t without a tag should default to the version: exit %d, %s", r.Code, r.Stderr)
	}
}

func TestPackCreatedAnnotation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, epoch, flag, want string
	}{
		{name: "default is the epoch", want: "1970-01-01T00:00:00Z"},
		{name: "SOURCE_DATE_EPOCH", epoch: "1767225600", want: "2026-01-01T00:00:00Z"},
		{name: "--created wins", epoch: "1767225600", flag: "2026-03-04T05:06:07Z", want: "2026-03-04T05:06:07Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useHome(t)
			setenv(t, "SOURCE_DATE_EPOCH", tt.epoch)
			args := []string{"pack", examples}
			if tt.flag != "" {
				args = append(args, "--created", tt.flag)
			}
			if r := runStax(t, args...); r.Code != 0 {
				t.Fatalf("pack: %d %s", r.Code, r.Stderr)
			}
			r := runStax(t, "inspect", "example-skills:1.0.0", "--output", "json")
			var out workflow.InspectResult
			decodeJSON(t, r.Stdout, &out)
			if got := out.Manifest.Annotations["org.opencontainers.image.created"]; got != tt.want {
				t.Errorf("created = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPackRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"over the size limit", []string{"pack", examples, "--max-size", "1KiB"}, 1, "--max-size"},
		{"bad size", []string{"pack", examples, "--max-size", "lots"}, 1, "--max-size"},
		{"bad created", []string{"pack", examples, "--created", "yesterday"}, 1, "RFC 3339"},
		{"uppercase tag", []string{"pack", examples, "-t", "Acme/Skills:1"}, 1, "lowercase"},
		{"digest tag", []string{"pack", examples, "-t", "acme/skills@sha256:" + strings.Repeat("a", 64)}, 1, "digest is computed"},
		{"missing directory", []string{"pack", "does-not-exist"}, 2, "does-not-exist"},
		{"bad symlink mode", []string{"pack", examples, "--symlink-mode", "follow"}, 1, "--symlink-mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := useHome(t)
			r := runStax(t, tt.args...)
			if r.Code != tt.code || !strings.Contains(r.Stderr, tt.want) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.Code, tt.code, r.Stderr, tt.want)
			}
			if index, err := os.ReadFile(filepath.Join(home, "store", "index.json")); err == nil && strings.Contains(string(index), "ref.name") {
				t.Errorf("a refused pack tagged something:\n%s", index)
			}
		})
	}
}

func TestPackInvalidSkillsReportsDiagnostics(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := t.TempDir()
	filetest.WriteFile(t, filepath.Join(dir, "Bad_Name", "SKILL.md"), "---\nname: Bad_Name\ndescription: x\n---\nbody\n")
	r := runStax(t, "pack", dir)
	if r.Code != 1 || !strings.Contains(r.Stderr, "SKILL.md:2: error:") {
		t.Fatalf("exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
}

func TestPackToLayout(t *testing.T) {
	t.Parallel()
	useHome(t)
	layout := filepath.Join(t.TempDir(), "out")
	r := runStax(t, "pack", examples, "-t", "oci:"+layout+":v1")
	if r.Code != 0 {
		t.Fatalf("pack: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(layout, "oci-layout")); err != nil {
		t.Fatalf("no OCI layout written: %v", err)
	}
	digest := strings.TrimSpace(r.Stdout)
	for _, ref := range []string{"oci:" + layout + ":v1", "oci:" + layout + "@" + digest} {
		r = runStax(t, "inspect", ref, "--output", "json")
		var out workflow.InspectResult
		decodeJSON(t, r.Stdout, &out)
		if out.Descriptor.Digest.String() != digest || len(out.Skills) != 4 {
			t.Errorf("inspect %s = %s, %d skills", ref, out.Descriptor.Digest, len(out.Skills))
		}
	}
}

func TestPackWithoutDefinitionUsesDefaults(t *testing.T) {
	t.Parallel()
	useHome(t)
	r := runStax(t, "pack", filepath.Join(examples, "skills"))
	if r.Code != 0 {
		t.Fatalf("pack: %d %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, `no package version`) || !strings.Contains(r.Stderr, "as skills:0.0.0") {
		t.Errorf("stderr does not explain the defaults:\n%s", r.Stderr)
	}
}

// --oci-layout puts another layout in place of the local store.
func TestOCILayoutReplacesTheStore(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	layout := filepath.Join(t.TempDir(), "store")
	if r := runStax(t, "pack", examples, "--oci-layout", layout); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(layout, "index.json")); err != nil {
		t.Fatalf("nothing in the layout: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "store")); !os.IsNotExist(err) {
		t.Error("the default store was written to")
	}
	if r := runStax(t, "resolve", "example-skills:1.0.0", "--oci-layout", layout); strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("resolve in the layout: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
}
