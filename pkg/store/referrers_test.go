package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/pkg/store"
)

// referrersFixture is a package manifest and two signatures of it.
type referrersFixture struct {
	subject    ocispec.Descriptor
	signatures []ocispec.Descriptor
	data       map[string][]byte
}

func newReferrersFixture(t *testing.T) *referrersFixture {
	t.Helper()
	f := &referrersFixture{data: map[string][]byte{}}
	add := func(mediaType string, data []byte) ocispec.Descriptor {
		d := content.NewDescriptorFromBytes(mediaType, data)
		f.data[d.Digest.String()] = data
		return d
	}
	manifest := func(m ocispec.Manifest) ocispec.Descriptor {
		m.Versioned, m.MediaType = specs.Versioned{SchemaVersion: 2}, ocispec.MediaTypeImageManifest
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return add(ocispec.MediaTypeImageManifest, data)
	}
	config := add("application/vnd.stax.config.v1+json", []byte(`{"kind":"package","name":"x"}`))
	empty := add(ocispec.MediaTypeEmptyJSON, []byte("{}"))
	f.subject = manifest(ocispec.Manifest{Config: config, Layers: []ocispec.Descriptor{}})
	subject := ocispec.Descriptor{MediaType: f.subject.MediaType, Digest: f.subject.Digest, Size: f.subject.Size}
	for _, who := range []string{"alice", "bob"} {
		layer := add("application/vnd.dev.sigstore.bundle.v0.3+json", []byte("bundle by "+who))
		f.signatures = append(f.signatures, manifest(ocispec.Manifest{
			ArtifactType: "application/vnd.dev.sigstore.bundle.v0.3+json",
			Config:       empty, Layers: []ocispec.Descriptor{layer}, Subject: &subject,
			Annotations: map[string]string{"dev.sigstore.bundle.predicateType": "https://stax.dev/attestation/package/v1", "by": who},
		}))
	}
	return f
}

// push pushes d and the blobs it refers to.
func (f *referrersFixture) push(t *testing.T, s *store.Store, d ocispec.Descriptor) error {
	t.Helper()
	ctx := context.Background()
	var m ocispec.Manifest
	if err := json.Unmarshal(f.data[d.Digest.String()], &m); err != nil {
		t.Fatal(err)
	}
	for _, b := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
		if err := s.Push(ctx, b, bytes.NewReader(f.data[b.Digest.String()])); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
			t.Fatal(err)
		}
	}
	return s.Push(ctx, d, bytes.NewReader(f.data[d.Digest.String()]))
}

func readIndexFile(t *testing.T, dir string) ocispec.Index {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index ocispec.Index
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	return index
}

// TestLayoutListsReferrersInTheTagSchema: a layout records the referrers
// of a manifest as a registry without the referrers API does, where
// regctl reads them: index.json names, by the tag sha256-<hex of the
// subject>, an image index listing each referrer once with its artifact
// type and annotations. Pushing a referrer again adds nothing; the index
// it replaces goes; the same referrers pushed in another order give the
// same index.json; and the referrers index is no predecessor a copy would
// carry.
func TestLayoutListsReferrersInTheTagSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReferrersFixture(t)
	write := func(order []int) string {
		dir := filepath.Join(t.TempDir(), "layout")
		s, err := store.OpenLayout(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := f.push(t, s, f.subject); err != nil {
			t.Fatal(err)
		}
		if err := s.Tag(ctx, f.subject, "1.0.0"); err != nil {
			t.Fatal(err)
		}
		for _, i := range order {
			if err := f.push(t, s, f.signatures[i]); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
				t.Fatal(err)
			}
		}
		return dir
	}
	dir := write([]int{0, 1, 0})

	tag := store.ReferrersTag(f.subject.Digest)
	if want := "sha256-" + f.subject.Digest.Encoded(); tag != want {
		t.Fatalf("tag %s, want %s", tag, want)
	}
	index := readIndexFile(t, dir)
	var named []ocispec.Descriptor
	for _, d := range index.Manifests {
		if d.Annotations[ocispec.AnnotationRefName] == tag {
			named = append(named, d)
		}
	}
	// The package, its two signatures, and the referrers index: no index
	// that a later one replaced.
	if len(named) != 1 || named[0].MediaType != ocispec.MediaTypeImageIndex || len(index.Manifests) != 4 {
		t.Fatalf("index.json lists %+v", index.Manifests)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "blobs", "sha256", named[0].Digest.Encoded()))
	if err != nil {
		t.Fatal(err)
	}
	var referrers ocispec.Index
	if err := json.Unmarshal(raw, &referrers); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(f.signatures)
	slices.SortFunc(want, func(a, b ocispec.Descriptor) int { return bytes.Compare([]byte(a.Digest), []byte(b.Digest)) })
	if referrers.MediaType != ocispec.MediaTypeImageIndex || len(referrers.Manifests) != 2 {
		t.Fatalf("referrers index %s", raw)
	}
	for i, d := range referrers.Manifests {
		if d.Digest != want[i].Digest || d.Size != want[i].Size || d.ArtifactType != "application/vnd.dev.sigstore.bundle.v0.3+json" || d.Annotations["by"] == "" {
			t.Fatalf("referrer %d is %+v, want %s with its artifact type and annotations", i, d, want[i].Digest)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "blobs", "sha256"))
	if err != nil {
		t.Fatal(err)
	}
	// config, empty config, two bundles, three manifests, one index.
	if len(entries) != 8 {
		t.Fatalf("%d blobs, want 8: a replaced referrers index is left", len(entries))
	}

	other := write([]int{1, 0})
	a, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	b, _ := os.ReadFile(filepath.Join(other, "index.json"))
	if !bytes.Equal(a, b) {
		t.Fatalf("the same referrers pushed in another order give another index.json:\n%s\n%s", a, b)
	}

	s, err := store.OpenLayout(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ro, err := store.OpenLayoutReadOnly(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for name, p := range map[string]content.PredecessorFinder{"writable": s, "read-only": ro} {
		preds, err := p.Predecessors(ctx, f.signatures[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(preds) != 0 {
			t.Errorf("%s layout: the signature has predecessors %+v, want none", name, preds)
		}
	}
}

// TestLayoutListsReferrersAnOlderWriterLeft: in a layout written without
// referrers indexes (by oras-go's layout store, as stax wrote layouts
// before), the next referrer pushed lists the ones already there too.
func TestLayoutListsReferrersAnOlderWriterLeft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReferrersFixture(t)
	dir := filepath.Join(t.TempDir(), "layout")
	older, err := oci.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []ocispec.Descriptor{f.subject, f.signatures[0]} {
		var m ocispec.Manifest
		if err := json.Unmarshal(f.data[d.Digest.String()], &m); err != nil {
			t.Fatal(err)
		}
		for _, b := range append([]ocispec.Descriptor{m.Config, d}, m.Layers...) {
			if err := older.Push(ctx, b, bytes.NewReader(f.data[b.Digest.String()])); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
				t.Fatal(err)
			}
		}
	}
	if err := older.Tag(ctx, f.subject, "1.0.0"); err != nil {
		t.Fatal(err)
	}

	s, err := store.OpenLayout(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := f.push(t, s, f.signatures[1]); err != nil {
		t.Fatal(err)
	}
	referrers, err := s.Resolve(ctx, store.ReferrersTag(f.subject.Digest))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := content.FetchAll(ctx, s, referrers)
	if err != nil {
		t.Fatal(err)
	}
	var index ocispec.Index
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range index.Manifests {
		got = append(got, d.Digest.String())
	}
	want := []string{f.signatures[0].Digest.String(), f.signatures[1].Digest.String()}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the referrers index lists %v, want %v", got, want)
	}
}
