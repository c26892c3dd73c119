package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/stax-dev/stax/pkg/workflow"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"

	"github.com/stax-dev/stax/internal/registrytest"
)

// writeImageLayout writes an OCI layout holding, tagged tag, an image
// index for linux/amd64 and linux/arm64 as ko writes it (untagged when
// tag is empty, as ko writes it); armLayerSize,
// when not zero, is the size the arm64 manifest declares for its layer.
func writeImageLayout(t *testing.T, dir, tag string, armLayerSize int64) {
	t.Helper()
	ctx := context.Background()
	s, err := oci.NewWithContext(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		d := content.NewDescriptorFromBytes(mediaType, data)
		if err := s.Push(ctx, d, bytes.NewReader(data)); err != nil {
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
	var manifests []ocispec.Descriptor
	for _, arch := range []string{"amd64", "arm64"} {
		cfg := pushJSON(ocispec.MediaTypeImageConfig, ocispec.Image{Platform: ocispec.Platform{OS: "linux", Architecture: arch}})
		layer := push(ocispec.MediaTypeImageLayerGzip, []byte("stax for "+arch))
		if arch == "arm64" && armLayerSize != 0 {
			layer.Size = armLayerSize
		}
		m := pushJSON(ocispec.MediaTypeImageManifest, ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2},
			MediaType: ocispec.MediaTypeImageManifest, Config: cfg, Layers: []ocispec.Descriptor{layer}})
		m.Platform = &ocispec.Platform{OS: "linux", Architecture: arch}
		manifests = append(manifests, m)
	}
	index := pushJSON(ocispec.MediaTypeImageIndex, ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex, Manifests: manifests})
	if tag == "" { // ko's index.json lists the index alone
		data, err := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2},
			MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{index}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ocispec.ImageIndexFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := s.Tag(ctx, index, tag); err != nil {
		t.Fatal(err)
	}
}

// stax copy takes a container image from a layout to a registry and says
// what it copied; pull keeps requiring a package; an image whose sizes
// overflow is refused before the registry sees a request.
func TestCopyImageFromLayout(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	layout := filepath.Join(t.TempDir(), "image")
	writeImageLayout(t, layout, "latest", 0)

	r := runStax(t, "copy", "oci:"+layout, reg.Host+"/acme/stax:1.0.0")
	if r.Code != 0 || !strings.Contains(r.Stderr, "(image index, 2 platforms;") {
		t.Fatalf("copy of an image index: exit %d\n%s", r.Code, r.Stderr)
	}
	r = runStax(t, "copy", "--output", "json", "oci:"+layout+":latest", reg.Host+"/acme/stax:again")
	var out workflow.Transfer
	decodeJSON(t, r.Stdout, &out)
	if r.Code != 0 || out.Kind != "image index" || !slices.Equal(out.Platforms, []string{"linux/amd64", "linux/arm64"}) || out.Skills != 0 {
		t.Errorf("copy --output json: exit %d, %+v", r.Code, out)
	}

	r = runStax(t, "pull", reg.Host+"/acme/stax:1.0.0")
	if r.Code != 1 || !strings.Contains(r.Stderr, "not an OCI image manifest") {
		t.Errorf("pull of an image: exit %d %s; want 1, not a package", r.Code, r.Stderr)
	}
	r = runStax(t, "copy", "--with-dependencies", "oci:"+layout, reg.Host+"/acme/stax:deps")
	if r.Code != 1 {
		t.Errorf("copy --with-dependencies of an image: exit %d %s; want 1, not a package", r.Code, r.Stderr)
	}

	// A layout with one untagged index, as ko writes it, is copied without
	// naming a tag; the destination's tag must be given.
	untagged := filepath.Join(t.TempDir(), "ko")
	writeImageLayout(t, untagged, "", 0)
	if r := runStax(t, "copy", "oci:"+untagged, reg.Host+"/acme/stax:ko"); r.Code != 0 || !strings.Contains(r.Stderr, "image index, 2 platforms") {
		t.Errorf("copy of an untagged layout: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "copy", "oci:"+untagged, reg.Host+"/acme/stax"); r.Code != 1 || !strings.Contains(r.Stderr, "give the destination a tag") {
		t.Errorf("copy of an untagged layout to no tag: exit %d %s; want 1 and the fix", r.Code, r.Stderr)
	}

	hostile := filepath.Join(t.TempDir(), "hostile")
	writeImageLayout(t, hostile, "latest", 1<<62)
	reg.ResetRequests()
	r = runStax(t, "copy", "oci:"+hostile, reg.Host+"/acme/hostile:1", "--max-size", "1GiB")
	if r.Code != 1 || !strings.Contains(r.Stderr, "over the 1073741824-byte limit; pass --max-size") {
		t.Errorf("copy of an image over the limit: exit %d %s", r.Code, r.Stderr)
	}
	if n := len(reg.Requests()); n != 0 {
		t.Errorf("the registry saw %d requests for an image refused before any blob moves", n)
	}
}
