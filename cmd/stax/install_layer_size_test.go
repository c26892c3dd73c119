package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/filetest"
)

// install reads a skills layer from an OCI layout as pull does: a layer
// whose bytes are not the size its descriptor says is content that does
// not verify (exit 6), whichever way the size lies, and nothing is
// installed.
func TestInstallRefusesLayerOfAnotherSize(t *testing.T) {
	useHome(t)
	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: sized\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(pkg, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "Sized.")})
	layout := filepath.Join(root, "layout")
	if r := runStax(t, "pack", pkg, "-t", "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatalf("pack: exit %d: %s", r.Code, r.Stderr)
	}
	layer := skillsLayerOf(t, layout, "1.0.0")
	for name, size := range map[string]int64{"smaller": layer.Size - 1, "larger": layer.Size + 1} {
		tag := "lying-" + name
		if r := runStax(t, "copy", "oci:"+layout+":1.0.0", "oci:"+layout+":"+tag); r.Code != 0 {
			t.Fatalf("copy: exit %d: %s", r.Code, r.Stderr)
		}
		lieAboutLayerSize(t, layout, tag, size)
		t.Run(name, func(t *testing.T) {
			project := filepath.Join(t.TempDir(), "project")
			if err := os.Mkdir(project, 0o755); err != nil {
				t.Fatal(err)
			}
			r := runStax(t, "install", "oci:"+layout+":"+tag, "--dir", project)
			if r.Code != 6 || !strings.Contains(r.Stderr, layer.Digest.String()) {
				t.Errorf("install of a layer whose descriptor says %d bytes (it has %d): exit %d\n%s", size, layer.Size, r.Code, r.Stderr)
			}
			filepath.WalkDir(project, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Name() == "SKILL.md" {
					t.Errorf("installed %s", p)
				}
				return nil
			})
		})
	}
}

// skillsLayerOf is the skills layer descriptor of the manifest tagged tag
// in the OCI layout at dir.
func skillsLayerOf(t *testing.T, dir, tag string) ocispec.Descriptor {
	t.Helper()
	var index ocispec.Index
	readJSONFile(t, filepath.Join(dir, "index.json"), &index)
	for _, d := range index.Manifests {
		if d.Annotations[ocispec.AnnotationRefName] == tag {
			var m ocispec.Manifest
			readJSONFile(t, filepath.Join(dir, "blobs", d.Digest.Algorithm().String(), d.Digest.Encoded()), &m)
			return m.Layers[0]
		}
	}
	t.Fatalf("no manifest tagged %s in %s", tag, dir)
	return ocispec.Descriptor{}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
