package transfer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/transfer"
)

var specsV2 = specs.Versioned{SchemaVersion: 2}

// imageLayout writes to the fixture's layout, as ko does, an image index
// of two platforms sharing a base layer, tagged tag, with a signature
// referring to the index. layerSize, when not zero, replaces the size the
// arm64 manifest declares for its own layer. It returns the index and its
// blobs (manifests, configs, layers).
func (f *fixture) imageLayout(t *testing.T, tag string, layerSize ...int64) (ocispec.Descriptor, []ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	s, err := store.OpenLayout(ctx, f.layout)
	if err != nil {
		t.Fatal(err)
	}
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		d := content.NewDescriptorFromBytes(mediaType, data)
		if err := s.Push(ctx, d, bytes.NewReader(data)); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
		return d
	}
	pushJSON := func(mediaType string, v any) ocispec.Descriptor {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return push(mediaType, data)
	}
	var blobs []ocispec.Descriptor
	base := push(ocispec.MediaTypeImageLayerGzip, []byte("base layer of "+tag))
	blobs = append(blobs, base)
	var manifests []ocispec.Descriptor
	for _, arch := range []string{"amd64", "arm64"} {
		cfg := pushJSON(ocispec.MediaTypeImageConfig, ocispec.Image{
			Platform: ocispec.Platform{OS: "linux", Architecture: arch},
			Config:   ocispec.ImageConfig{Entrypoint: []string{"/ko-app/stax"}, User: "65532:65532"},
		})
		app := push(ocispec.MediaTypeImageLayerGzip, []byte("stax for "+arch+" in "+tag))
		blobs = append(blobs, cfg, app)
		if arch == "arm64" && len(layerSize) > 0 {
			app.Size = layerSize[0]
		}
		m := pushJSON(ocispec.MediaTypeImageManifest, ocispec.Manifest{
			Versioned: specsV2, MediaType: ocispec.MediaTypeImageManifest,
			Config: cfg, Layers: []ocispec.Descriptor{base, app},
		})
		blobs = append(blobs, m)
		m.Platform = &ocispec.Platform{OS: "linux", Architecture: arch}
		manifests = append(manifests, m)
	}
	index := pushJSON(ocispec.MediaTypeImageIndex, ocispec.Index{Versioned: specsV2, MediaType: ocispec.MediaTypeImageIndex, Manifests: manifests})
	if err := s.Tag(ctx, index, tag); err != nil {
		t.Fatal(err)
	}
	sig := push("application/vnd.example.signature", []byte("signed "+tag))
	pushJSON(ocispec.MediaTypeImageManifest, ocispec.Manifest{
		Versioned: specsV2, MediaType: ocispec.MediaTypeImageManifest, ArtifactType: "application/vnd.example.signature",
		Config: ocispec.DescriptorEmptyJSON, Layers: []ocispec.Descriptor{sig}, Subject: &index,
	})
	push(ocispec.MediaTypeEmptyJSON, ocispec.DescriptorEmptyJSON.Data)
	return index, blobs
}

// A multi-platform image index in a layout, as ko writes it, is copied to
// a registry with every manifest, config and layer, and the artifacts
// that refer to it; the result says what it was.
func TestCopyImageIndex(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	index, blobs := f.imageLayout(t, "image")
	remote := f.reg.Host + "/acme/stax:1"
	res, err := transfer.Copy(ctx, f.open(t, "oci:"+f.layout+":image"), f.open(t, remote),
		transfer.Options{AnyArtifact: true, Referrers: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Package != nil || res.Image == nil || res.Image.Kind != transfer.KindImageIndex ||
		!slices.Equal(res.Image.Platforms, []string{"linux/amd64", "linux/arm64"}) || res.Image.Manifests != 2 {
		t.Errorf("result %+v, image %+v; want an image index of linux/amd64 and linux/arm64", res, res.Image)
	}
	if res.Descriptor.Digest != index.Digest {
		t.Errorf("copied %s, want the index %s", res.Descriptor.Digest, index.Digest)
	}

	ref, _ := reference.Parse(remote)
	repo, err := f.opener.Registry.Repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := repo.Resolve(ctx, "1"); err != nil || got.Digest != index.Digest {
		t.Fatalf("tag 1 in the registry: %v, %v; want the index %s", got.Digest, err, index.Digest)
	}
	for _, b := range blobs {
		var err error
		if b.MediaType == ocispec.MediaTypeImageManifest {
			_, err = content.FetchAll(ctx, repo.Manifests(), b)
		} else {
			_, err = content.FetchAll(ctx, repo.Blobs(), b)
		}
		if err != nil {
			t.Errorf("%s %s not in the registry: %v", b.MediaType, b.Digest, err)
		}
	}
	var referrers []ocispec.Descriptor
	if err := repo.Referrers(ctx, index, "", func(r []ocispec.Descriptor) error {
		referrers = append(referrers, r...)
		return nil
	}); err != nil || len(referrers) != 1 || referrers[0].ArtifactType != "application/vnd.example.signature" {
		t.Errorf("referrers of the index in the registry: %+v, %v; want the signature", referrers, err)
	}

	// Without AnyArtifact (pull, install), an image is not a package.
	f.reg.ResetRequests()
	_, err = transfer.Copy(ctx, f.open(t, "oci:"+f.layout+":image"), f.open(t, f.reg.Host+"/acme/other:1"), transfer.Options{})
	if err == nil || !strings.Contains(err.Error(), "not an OCI image manifest") {
		t.Errorf("copy of an image as a package: %v, want it refused", err)
	}
	if n := len(f.reg.Requests()); n != 0 {
		t.Errorf("the registry saw %d requests for an image refused as a package", n)
	}
}

// An index whose platform manifest declares layer sizes that overflow, or
// exceed the limit, is refused before any blob moves; so is a manifest
// whose bytes do not match its digest.
func TestCopyImageVetsFirst(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	tests := []struct {
		name      string
		layerSize int64
		maxSize   int64
		wantErr   string
	}{
		{name: "sum overflows", layerSize: math.MaxInt64 - 10, maxSize: -1, wantErr: "declare sizes whose sum would overflow"},
		{name: "over the default limit", layerSize: 64 << 20, wantErr: "over the 67108864-byte limit; pass --max-size"},
		{name: "over a given limit", maxSize: 100, wantErr: "over the 100-byte limit"},
		{name: "negative size", layerSize: -1, maxSize: -1, wantErr: "with a negative size (-1)"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tag := "hostile" + itoa(int64(i))
			if tt.layerSize != 0 {
				f.imageLayout(t, tag, tt.layerSize)
			} else {
				f.imageLayout(t, tag)
			}
			f.reg.ResetRequests()
			_, err := transfer.Copy(ctx, f.open(t, "oci:"+f.layout+":"+tag), f.open(t, f.reg.Host+"/hostile/image:"+tag),
				transfer.Options{AnyArtifact: true, Referrers: true, Limits: layers.Limits{MaxSize: tt.maxSize}})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Copy: %v, want %q", err, tt.wantErr)
			}
			if n := len(f.reg.Requests()); n != 0 {
				t.Errorf("the registry saw %d requests for an image refused before any blob moves: %v", n, f.reg.Requests())
			}
		})
	}

	// A layer's bytes are known only as they are read: the copy stops at
	// the mismatch, naming the layer, and leaves the tag untouched.
	t.Run("layer does not match its digest", func(t *testing.T) {
		_, blobs := f.imageLayout(t, "tampered")
		layer := blobs[len(blobs)-2] // the arm64 manifest's own layer
		path := filepath.Join(f.layout, "blobs", layer.Digest.Algorithm().String(), layer.Digest.Encoded())
		os.Chmod(path, 0o644)
		if err := os.WriteFile(path, []byte("stax for arm64 in tampereD"), 0o644); err != nil {
			t.Fatal(err)
		}
		dst := f.reg.Host + "/hostile/image:tampered"
		_, err := transfer.Copy(ctx, f.open(t, "oci:"+f.layout+":tampered"), f.open(t, dst), transfer.Options{AnyArtifact: true})
		if err == nil || !strings.Contains(err.Error(), layer.Digest.String()) {
			t.Fatalf("Copy: %v, want the tampered layer %s named", err, layer.Digest)
		}
		ref, _ := reference.Parse(dst)
		repo, err := f.opener.Registry.Repository(ref)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := repo.Resolve(ctx, "tampered"); err == nil {
			t.Errorf("the registry tagged %s for an image with a tampered layer", d.Digest)
		}
	})
}
