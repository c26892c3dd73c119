package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	ggcrremote "github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/layers"
)

// rawManifest is a manifest go-containerregistry pushes as given.
type rawManifest struct {
	body      []byte
	mediaType types.MediaType
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.body, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return m.mediaType, nil }

// foreignLayer is a skills layer written with the standard library's tar and
// gzip, as another tool would write it: unsorted, with mtimes, an
// executable script.
func foreignLayer(t *testing.T) []byte {
	t.Helper()
	return foreignLayerOf(t, "---\nname: hello\ndescription: Say hello. Use when greeting someone.\n---\nRun scripts/run.sh.\n")
}

// foreignLayerOf is foreignLayer with skillMD as hello's SKILL.md.
func foreignLayerOf(t *testing.T, skillMD string) []byte {
	t.Helper()
	return foreignLayerFiles(t, foreignFile{"hello/scripts/run.sh", 0o775, "#!/bin/sh\necho hello\n"},
		foreignFile{"hello/SKILL.md", 0o664, skillMD})
}

// foreignFile is a regular file of a layer another writer made.
type foreignFile struct {
	name string
	mode int64
	body string
}

// foreignLayerFiles is a gzipped skills layer of files, in that order, as
// another writer makes it: with an owner's name, and no directories.
func foreignLayerFiles(t *testing.T, files ...foreignFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg, Uname: "someone"}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// pushForeign writes an artifact with go-containerregistry: a skills layer
// from foreignLayer, a config of configMediaType, and artifactType.
func pushForeign(t *testing.T, ref, configMediaType, artifactType string) {
	t.Helper()
	pushForeignLayer(t, ref, foreignLayer(t), configMediaType, artifactType)
}

// pushForeignLayer is pushForeign with the given skills layer.
func pushForeignLayer(t *testing.T, ref string, skillsLayer []byte, configMediaType, artifactType string) {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	layer := static.NewLayer(skillsLayer, types.MediaType(layers.MediaTypeSkills))
	config := static.NewLayer([]byte(`{"kind":"agent","name":"other","specVersion":"1.0.0","version":"1"}`), types.MediaType(configMediaType))
	for _, l := range []v1.Layer{layer, config} {
		if err := ggcrremote.WriteLayer(r.Context(), l, ggcrremote.WithAuth(authn.Anonymous)); err != nil {
			t.Fatal(err)
		}
	}
	desc := func(l v1.Layer) ocispec.Descriptor {
		d, _ := l.Digest()
		size, _ := l.Size()
		mt, _ := l.MediaType()
		return ocispec.Descriptor{MediaType: string(mt), Digest: digest.Digest(d.String()), Size: size}
	}
	manifest := ocispec.Manifest{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: artifactType,
		Config:       desc(config),
		Layers:       []ocispec.Descriptor{desc(layer)},
	}
	manifest.SchemaVersion = 2
	body, _ := json.Marshal(manifest)
	if err := ggcrremote.Put(r, rawManifest{body: body, mediaType: types.OCIManifestSchema1}); err != nil {
		t.Fatal(err)
	}
}

// An artifact written by another client with the stax media types is
// pulled and extracted, modes included.
func TestPullArtifactWrittenByAnotherClient(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushForeign(t, reg.Host+"/other/skills:1", "application/vnd.stax.config.v1+json", "application/vnd.stax.package.v1")
	out := filepath.Join(t.TempDir(), "skills")
	if r := runStax(t, "pull", reg.Host+"/other/skills:1", "-o", out); r.Code != 0 {
		t.Fatalf("pull: %d %s", r.Code, r.Stderr)
	}
	info, err := os.Stat(filepath.Join(out, "hello", "scripts", "run.sh"))
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Fatalf("script: %v %v", err, info)
	}
	if info, err := os.Stat(filepath.Join(out, "hello", "SKILL.md")); err != nil || info.Mode().Perm() != 0o644 {
		t.Fatalf("SKILL.md: %v %v", err, info)
	}
}

// An artifact pushed by stax reads back through go-containerregistry with
// the manifest, config and layer bytes stax has in its local store.
func TestIndependentClientReadsStaxPush(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	home := useHome(t)
	if r := runStax(t, "pack", examples); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", "example-skills:1.0.0", ref); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	local := func(d string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(home, "store", "blobs", "sha256", d[len("sha256:"):]))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ggcrremote.Get(r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest.String() != goldenExamplesDigest || !bytes.Equal(got.Manifest, local(goldenExamplesDigest)) {
		t.Fatalf("manifest %s differs from the stored one", got.Digest)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(got.Manifest, &m); err != nil {
		t.Fatal(err)
	}
	if m.ArtifactType != "application/vnd.stax.package.v1" || m.Layers[0].Annotations["dev.stax.skills.count"] != "4" {
		t.Errorf("manifest: %+v", m)
	}
	for _, d := range []ocispec.Descriptor{m.Config, m.Layers[0]} {
		blob, err := ggcrremote.Layer(r.Context().Digest(d.Digest.String()))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := blob.Compressed()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(b, local(d.Digest.String())) {
			t.Errorf("blob %s differs between the registry and the local store", d.Digest)
		}
	}
}

// A manifest without artifactType whose config media type is stax's is a
// stax package, as the OCI 1.1 rule says (oras push --image-spec v1.0
// writes such manifests).
func TestPullPackageWithoutArtifactType(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushForeign(t, reg.Host+"/other/skills:1", "application/vnd.stax.config.v1+json", "")
	out := filepath.Join(t.TempDir(), "skills")
	if r := runStax(t, "pull", reg.Host+"/other/skills:1", "-o", out); r.Code != 0 {
		t.Fatalf("pull: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "hello", "SKILL.md")); err != nil {
		t.Error(err)
	}
	// Without the stax config media type either, it is not a stax package.
	pushForeign(t, reg.Host+"/other/image:1", "application/vnd.oci.image.config.v1+json", "")
	if r := runStax(t, "pull", reg.Host+"/other/image:1"); r.Code != 1 || !strings.Contains(r.Stderr, "not a stax package") {
		t.Errorf("pull of an image: %d %s", r.Code, r.Stderr)
	}
}
