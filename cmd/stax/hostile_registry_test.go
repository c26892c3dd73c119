package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/stax-dev/stax/pkg/workflow"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/registrytest"
)

// pushPackageWithLayers pushes the example package's config with the given
// layers to repoName:tag, as a hostile writer would, and returns it.
func pushPackageWithLayers(t *testing.T, reg *registrytest.Registry, from workflow.Transfer, repoName, tag string, layers []ocispec.Descriptor) ocispec.Descriptor {
	t.Helper()
	ctx := context.Background()
	src := testRepository(t, reg.Host+"/acme/skills")
	manifest, err := content.FetchAll(ctx, src, ocispec.Descriptor{MediaType: from.MediaType, Digest: digest.Digest(from.Digest), Size: from.Size})
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	m.Layers = layers
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	repo := testRepository(t, reg.Host+"/"+repoName)
	for _, b := range append([]ocispec.Descriptor{m.Config}, from.Layers[0]) {
		if err := repo.Mount(ctx, b, "acme/skills", nil); err != nil {
			t.Fatal(err)
		}
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, raw)
	if err := repo.PushReference(ctx, desc, bytes.NewReader(raw), tag); err != nil {
		t.Fatal(err)
	}
	return desc
}

// A "layer" that is itself a manifest pointing at a blob over the limit is
// a layer like the rest: copied as it is, never followed, so the big blob
// is never fetched. (go-containerregistry's registry, unlike distribution,
// takes a manifest whose layers are not blobs.)
func TestPullVetsEveryNode(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t, registrytest.WithReferrersAPI())
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	ctx := context.Background()
	repo := testRepository(t, reg.Host+"/evil/skills")
	big := bytes.Repeat([]byte{'x'}, 2<<20)
	bigDesc := content.NewDescriptorFromBytes("application/octet-stream", big)
	if err := repo.Push(ctx, bigDesc, bytes.NewReader(big)); err != nil {
		t.Fatal(err)
	}
	inner, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/x-inner", oras.PackManifestOptions{Layers: []ocispec.Descriptor{bigDesc}})
	if err != nil {
		t.Fatal(err)
	}
	pushPackageWithLayers(t, reg, pushed, "evil/skills", "1", []ocispec.Descriptor{pushed.Layers[0], inner})

	reg.ResetRequests()
	r := runStax(t, "pull", reg.Host+"/evil/skills:1", "--max-size", "1MiB")
	if r.Code != 0 {
		t.Errorf("exit %d %s", r.Code, r.Stderr)
	}
	for _, req := range reg.Requests() {
		if strings.HasSuffix(req.Path, bigDesc.Digest.String()) && req.Method == http.MethodGet {
			t.Errorf("fetched the blob over the limit: %+v", req)
		}
	}

	// A referrer whose blobs go over the limit is refused before they are
	// fetched.
	cfg := []byte("{}")
	cfgDesc := content.NewDescriptorFromBytes("application/vnd.example.config", cfg)
	if err := repo.Push(ctx, cfgDesc, bytes.NewReader(cfg)); err != nil {
		t.Fatal(err)
	}
	subject := ocispec.Descriptor{MediaType: pushed.MediaType, Digest: digest.Digest(pushed.Digest), Size: pushed.Size}
	if err := repo.Mount(ctx, bigDesc, "evil/skills", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := oras.PackManifest(ctx, testRepository(t, reg.Host+"/acme/skills"), oras.PackManifestVersion1_1, "application/x-attachment", oras.PackManifestOptions{
		Subject: &subject, Layers: []ocispec.Descriptor{bigDesc},
	}); err != nil {
		t.Fatal(err)
	}
	reg.ResetRequests()
	r = runStax(t, "copy", reg.Host+"/acme/skills:1.0.0", reg.Host+"/mirror/skills:1.0.0", "--max-size", "1MiB")
	if r.Code != 1 || !strings.Contains(r.Stderr, "--max-size") || !strings.Contains(r.Stderr, "refers to the package") {
		t.Errorf("copy of a package with a big referrer: exit %d %s; want 1 and the size limit", r.Code, r.Stderr)
	}
	for _, req := range reg.Requests() {
		if strings.HasSuffix(req.Path, bigDesc.Digest.String()) && req.Method == http.MethodGet {
			t.Errorf("copy fetched the blob over the limit: %+v", req)
		}
	}
}

// Sizes that add up past the 64-bit maximum are refused before any fetch.
func TestPullRefusesOverflowingSizes(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	huge := pushed.Layers[0]
	huge.Size = math.MaxInt64
	huge.MediaType = "application/octet-stream"
	pushPackageWithLayers(t, reg, pushed, "evil/skills", "1", []ocispec.Descriptor{pushed.Layers[0], huge, huge})

	useHome(t)
	reg.ResetRequests()
	r := runStax(t, "pull", reg.Host+"/evil/skills:1", "--max-size", "0")
	if r.Code != 1 || !strings.Contains(r.Stderr, "overflow") {
		t.Errorf("exit %d %s; want 1 and the overflow", r.Code, r.Stderr)
	}
	for _, req := range reg.Requests() {
		if strings.Contains(req.Path, "/blobs/") && req.Method == http.MethodGet && strings.HasSuffix(req.Path, huge.Digest.String()) {
			t.Errorf("fetched a layer of a refused package: %+v", req)
		}
	}
}

// A server streaming a blob without Content-Length and without end is cut
// off once it sends more than the blob's size; the pull fails verification.
func TestPullCutsOffEndlessStreams(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	const sent = 256 << 20
	fault := registrytest.Stream(http.MethodGet, layerPath("acme/skills", pushed), sent).Times(-1)
	reg.AddFaults(fault)
	useHome(t)
	r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "skills"))
	if r.Code != 6 || !strings.Contains(r.Stderr, reg.Host) || !strings.Contains(r.Stderr, pushed.Layers[0].Digest.String()) {
		t.Errorf("exit %d %s; want 6 naming the host and the blob", r.Code, r.Stderr)
	}
	reg.Stop() // ends the handlers, so that their records are complete
	var streamed int64
	for _, req := range reg.Requests() {
		if req.Fault == "stream" {
			streamed += req.ResponseBytes
		}
	}
	t.Logf("the server streamed %d bytes in all before the client stopped reading (it offered %d per request)", streamed, sent)
	if streamed == 0 || streamed > 64<<20 {
		t.Errorf("the server sent %d bytes in all before the client stopped reading", streamed)
	}
}

// Content that does not match its digest is exit 6 whatever it comes from.
func TestDigestMismatchIsVerificationFailure(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	layer := pushed.Layers[0].Digest

	t.Run("registry", func(t *testing.T) {
		useHome(t)
		fault := registrytest.CorruptBlob("acme/skills", layer).Times(-1)
		reg.AddFaults(fault)
		defer fault.Times(0)
		r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "out"))
		if r.Code != 6 || !strings.Contains(r.Stderr, layer.String()) {
			t.Errorf("exit %d %s", r.Code, r.Stderr)
		}
	})
	for name, alter := range map[string]func(t *testing.T, layout string){
		"OCI layout":                   func(t *testing.T, layout string) { corruptBlob(t, layout, layer) },
		"OCI layout with a lying size": func(t *testing.T, layout string) { lieAboutLayerSize(t, layout, "1.0.0", 100) },
	} {
		t.Run(name, func(t *testing.T) {
			useHome(t)
			layout := filepath.Join(t.TempDir(), "layout")
			if r := runStax(t, "copy", reg.Host+"/acme/skills:1.0.0", "oci:"+layout); r.Code != 0 {
				t.Fatal(r.Stderr)
			}
			alter(t, layout)
			r := runStax(t, "pull", "oci:"+layout+":1.0.0", "-o", filepath.Join(t.TempDir(), "out"))
			if r.Code != 6 || !strings.Contains(r.Stderr, layer.String()) {
				t.Errorf("exit %d %s", r.Code, r.Stderr)
			}
		})
	}
	t.Run("local store", func(t *testing.T) {
		home := useHome(t)
		if r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0"); r.Code != 0 {
			t.Fatal(r.Stderr)
		}
		corruptBlob(t, filepath.Join(home, "store"), layer)
		r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "out"))
		if r.Code != 6 || !strings.Contains(r.Stderr, layer.String()) {
			t.Errorf("exit %d %s", r.Code, r.Stderr)
		}
	})
}

// corruptBlob flips the first byte of blob dgst of the OCI layout at dir.
func corruptBlob(t *testing.T, dir string, dgst digest.Digest) {
	t.Helper()
	path := filepath.Join(dir, "blobs", dgst.Algorithm().String(), dgst.Encoded())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[0] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lieAboutLayerSize rewrites the manifest tagged tag in the layout at dir
// so that its skills layer claims size bytes.
func lieAboutLayerSize(t *testing.T, dir, tag string, size int64) {
	t.Helper()
	editLayoutManifest(t, dir, tag, func(m *ocispec.Manifest) { m.Layers[0].Size = size })
}

// editLayoutManifest rewrites the manifest tagged tag in the OCI layout at
// dir with edit, and tags the new manifest in its place.
func editLayoutManifest(t *testing.T, dir, tag string, edit func(*ocispec.Manifest)) {
	t.Helper()
	indexPath := filepath.Join(dir, "index.json")
	data, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	var index ocispec.Index
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	for i, d := range index.Manifests {
		if d.Annotations[ocispec.AnnotationRefName] != tag {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "blobs", "sha256", d.Digest.Encoded()))
		if err != nil {
			t.Fatal(err)
		}
		var m ocispec.Manifest
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		edit(&m)
		raw, _ = json.Marshal(m)
		nd := content.NewDescriptorFromBytes(d.MediaType, raw)
		if err := os.WriteFile(filepath.Join(dir, "blobs", "sha256", nd.Digest.Encoded()), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		nd.Annotations = d.Annotations
		index.Manifests[i] = nd
	}
	data, _ = json.Marshal(index)
	if err := os.WriteFile(indexPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
