package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// addTags tags manifest n more times in the index.json of the store at
// dir, as a store that many pulls tagged would hold, and writes it as the
// store writes it: a store grown large without pulling n packages.
func addTags(tb testing.TB, dir string, manifest ocispec.Descriptor, n int) {
	tb.Helper()
	s, err := OpenLocal(context.Background(), dir, ReadWrite)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		desc := manifest
		desc.Annotations = maps.Clone(manifest.Annotations)
		s.index.refs[fmt.Sprintf("registry.example.com/team/skills-%06d:1.0.0", i)] = desc
	}
	index := s.index.index
	index.Manifests = s.index.manifests()
	f, err := os.Create(filepath.Join(dir, ocispec.ImageIndexFile))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := encodeIndex(f, &index); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkOpenLocal opens a local store of n tags for reading, as every
// command that reads the store does.
func BenchmarkOpenLocal(b *testing.B) {
	for _, n := range []int{100, 15_000, 100_000} {
		b.Run(fmt.Sprintf("%dtags", n), func(b *testing.B) {
			dir, manifest := storeWithPackage(b)
			addTags(b, dir, manifest, n)
			b.ReportAllocs()
			for b.Loop() {
				s, err := OpenLocal(context.Background(), dir, ReadOnly)
				if err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}

// The store never writes an index.json its readers refuse: a change that
// would take it past MaxIndexSize fails, as a local failure naming the
// store and what frees it, and leaves the index as it was.
func TestIndexWriteStopsAtTheReadersLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, manifest := storeWithPackage(t)
	s, err := OpenLocal(ctx, dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Few entries, each large: an index over the limit without 250,000 tags.
	big := strings.Repeat("x", 1<<20)
	for i := range MaxIndexSize>>20 - 1 {
		desc := manifest
		desc.Annotations = map[string]string{"note": big}
		s.index.refs[fmt.Sprintf("big:%d", i)] = desc
	}
	if err := s.Tag(ctx, manifest, "under:1"); err != nil {
		t.Fatalf("a tag that keeps the index under the limit: %v", err)
	}
	indexPath := filepath.Join(dir, ocispec.ImageIndexFile)
	before, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	desc := manifest
	desc.Annotations = map[string]string{"note": big}
	s.index.refs["over:1"] = desc
	err = s.Tag(ctx, manifest, "over:2")
	if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "stax store prune") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("a tag past the limit: %v (%v), want a local failure naming the store and stax store prune", err, errdefs.Of(err))
	}
	if after, err := os.ReadFile(indexPath); err != nil || !bytes.Equal(after, before) {
		t.Errorf("index.json changed by a refused write (%v)", err)
	}
	// Nor does the open store resolve what it did not save.
	if got, err := s.Resolve(ctx, "over:2"); err == nil {
		t.Errorf("the open store resolves over:2 (%s), which a refused write did not save", got.Digest)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ocispec.ImageIndexFile) && e.Name() != ocispec.ImageIndexFile {
			t.Errorf("left beside index.json: %s", e.Name())
		}
	}
	s.Close()
	r, err := OpenLocal(ctx, dir, ReadOnly)
	if err != nil {
		t.Fatalf("open the store the writer left at its limit: %v", err)
	}
	defer r.Close()
	if _, err := r.Resolve(ctx, "under:1"); err != nil {
		t.Error(err)
	}
}

// index.json is written as json.Encoder writes an ocispec.Index, as
// earlier versions wrote it: the store's format does not change.
func TestIndexEncodingIsJSONEncoders(t *testing.T) {
	t.Parallel()
	dir, manifest := storeWithPackage(t)
	addTags(t, dir, manifest, 3)
	s, err := OpenLocal(context.Background(), dir, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	index := s.index.index
	index.Annotations = map[string]string{"a": `"manifests":[] <&>`}
	index.Manifests = s.index.manifests()
	var got, want bytes.Buffer
	if err := encodeIndex(&got, &index); err != nil {
		t.Fatal(err)
	}
	if err := json.NewEncoder(&want).Encode(&index); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("encodeIndex:\n%s\njson.Encoder:\n%s", got.String(), want.String())
	}
}

// BenchmarkOpenLayoutReadOnly opens a local store of n tags as a layout,
// as every read of a registry package does to find the blobs the store
// holds already (see target.OpenRegistry), and resolves one tag.
func BenchmarkOpenLayoutReadOnly(b *testing.B) {
	for _, n := range []int{100, 15_000} {
		b.Run(fmt.Sprintf("%dtags", n), func(b *testing.B) {
			dir, manifest := storeWithPackage(b)
			addTags(b, dir, manifest, n)
			b.ReportAllocs()
			for b.Loop() {
				l, err := OpenLayoutReadOnly(context.Background(), dir)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := l.Resolve(context.Background(), "a:1"); err != nil {
					b.Fatal(err)
				}
				l.Close()
			}
		})
	}
}
