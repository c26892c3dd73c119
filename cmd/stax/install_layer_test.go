package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/filetest"
)

// install reads a skills layer from an OCI layout as pull does: a layer
// whose bytes are not the size its descriptor says is content that does
// not verify (exit 6), whichever way the size lies, and nothing is
// installed.
func TestInstallRefusesLayerOfAnotherSize(t *testing.T) {
	t.Parallel()
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
			// inspect reads the same layer, and says the same.
			if r := runStax(t, "inspect", "oci:"+layout+":"+tag); r.Code != 6 || !strings.Contains(r.Stderr, layer.Digest.String()) {
				t.Errorf("inspect of a layer whose descriptor says %d bytes (it has %d): exit %d\n%s", size, layer.Size, r.Code, r.Stderr)
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

// install refuses a layer that hides content from it — past the tar
// end-of-archive marker, at the top level where no skill is, or down a
// path no file system opens — before anything is installed, though the
// skill it wants is intact: exit 6 for a stream that is not a layer, 5
// for an entry stax refuses.
func TestInstallRefusesHostileLayers(t *testing.T) {
	t.Parallel()
	useHome(t)
	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: hostile\nversion: 1.0.0\n")
	skill := skillMD("a", "Intact.")
	writeSkillFiles(t, filepath.Join(pkg, "skills"), map[string]string{"a/SKILL.md": skill})
	layout := filepath.Join(root, "layout")
	if r := runStax(t, "pack", pkg, "-t", "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatalf("pack: exit %d: %s", r.Code, r.Stderr)
	}
	intact := tarEntry{"a/SKILL.md", skill}
	for name, tt := range map[string]struct {
		layer []byte
		code  int
		says  string
	}{
		"entries after the end of the archive": {
			gzipped(t, append(tarStream(t, intact), tarStream(t, tarEntry{"a/hidden.md", "never checked"})...)),
			6, "after the end of the tar archive",
		},
		"a file at the top level": {
			gzipped(t, tarStream(t, intact, tarEntry{"README.md", "no skill"})),
			5, `"README.md": file at the top level`,
		},
		"a path of 4 KiB": {
			gzipped(t, tarStream(t, intact, tarEntry{"b/" + strings.Repeat("d/", 2050) + "f", "deep"})),
			5, "over the limit of 1024",
		},
	} {
		tag := strings.ReplaceAll(name, " ", "-")
		if r := runStax(t, "copy", "oci:"+layout+":1.0.0", "oci:"+layout+":"+tag); r.Code != 0 {
			t.Fatalf("copy: exit %d: %s", r.Code, r.Stderr)
		}
		blob := digest.FromBytes(tt.layer)
		if err := os.WriteFile(filepath.Join(layout, "blobs", "sha256", blob.Encoded()), tt.layer, 0o644); err != nil {
			t.Fatal(err)
		}
		editLayoutManifest(t, layout, tag, func(m *ocispec.Manifest) {
			m.Layers[0].Digest, m.Layers[0].Size = blob, int64(len(tt.layer))
		})
		t.Run(name, func(t *testing.T) {
			project := filepath.Join(t.TempDir(), "project")
			if err := os.Mkdir(project, 0o755); err != nil {
				t.Fatal(err)
			}
			r := runStax(t, "install", "oci:"+layout+":"+tag, "--dir", project)
			if r.Code != tt.code || !strings.Contains(r.Stderr, tt.says) {
				t.Errorf("exit %d, want %d saying %q:\n%s", r.Code, tt.code, tt.says, r.Stderr)
			}
			filepath.WalkDir(project, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					t.Errorf("installed %s", p)
				}
				return nil
			})
		})
	}
}

type tarEntry struct{ name, body string }

// tarStream is a tar archive of regular files, its end-of-archive marker
// included, as archive/tar writes it.
func tarStream(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
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
