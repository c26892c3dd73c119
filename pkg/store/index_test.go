package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// storeWithPackage is a local store holding one manifest, tagged a:1 and
// b:2, and the blobs it refers to.
func storeWithPackage(t testing.TB) (dir string, manifest ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	dir = filepath.Join(t.TempDir(), "store")
	s, err := OpenLocal(ctx, dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		desc := content.NewDescriptorFromBytes(mediaType, data)
		if err := s.Push(ctx, desc, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return desc
	}
	config := push("application/vnd.stax.config.v1+json", []byte(`{"kind":"package","name":"x"}`))
	layer := push("application/vnd.oci.image.layer.v1.tar+gzip", []byte("layer"))
	data, err := json.Marshal(ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, Config: config, Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	manifest = push(ocispec.MediaTypeImageManifest, data)
	for _, tag := range []string{"b:2", "a:1"} {
		if err := s.Tag(ctx, manifest, tag); err != nil {
			t.Fatal(err)
		}
	}
	return dir, manifest
}

// An index.json that a killed writer left empty or torn is rebuilt by the
// next open, reader or writer: every manifest in blobs/ by digest, and
// the tags the torn file still records whole. The store says what it
// rebuilt, once.
func TestTornIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		damage   func(index []byte) []byte
		mode     Mode
		wantTags []string
	}{
		"empty, opened by a writer": {func([]byte) []byte { return nil }, ReadWrite, nil},
		"empty, opened by a reader": {func([]byte) []byte { return nil }, ReadOnly, nil},
		"torn in its second entry": {func(index []byte) []byte {
			return index[:bytes.Index(index, []byte(`"b:2"`))]
		}, ReadWrite, []string{"a:1"}},
		"not JSON": {func([]byte) []byte { return []byte("\x00\x00\x00") }, ReadOnly, nil},
		// An entry with a bad digest costs that entry, not the ones after it.
		"a bad digest before the second entry": {func(index []byte) []byte {
			var ix map[string]json.RawMessage
			var entries []json.RawMessage
			if json.Unmarshal(index, &ix) != nil || json.Unmarshal(ix["manifests"], &entries) != nil || len(entries) != 2 {
				panic("the test store's index is not two entries")
			}
			bad := json.RawMessage(`{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:zz","size":1}`)
			ix["manifests"], _ = json.Marshal([]json.RawMessage{entries[0], bad, entries[1]})
			out, _ := json.Marshal(ix)
			return out
		}, ReadWrite, []string{"a:1", "b:2"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir, manifest := storeWithPackage(t)
			indexPath := filepath.Join(dir, ocispec.ImageIndexFile)
			index, err := os.ReadFile(indexPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(indexPath, tt.damage(index), 0o644); err != nil {
				t.Fatal(err)
			}

			s, err := OpenLocal(ctx, dir, tt.mode)
			if err != nil {
				t.Fatalf("open a store with a damaged index: %v", err)
			}
			if !strings.Contains(s.Repaired, "rebuilt it from the 1 manifests in blobs/") {
				t.Errorf("Repaired = %q", s.Repaired)
			}
			if got, err := s.Resolve(ctx, manifest.Digest.String()); err != nil || got.Digest != manifest.Digest {
				t.Errorf("resolve the manifest by digest: %v, %v", got.Digest, err)
			}
			var tags []string
			if err := s.Tags(ctx, "", func(page []string) error { tags = append(tags, page...); return nil }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tags, tt.wantTags) {
				t.Errorf("tags = %v, want %v", tags, tt.wantTags)
			}
			s.Close()

			// The rebuilt index is on disk: the next open has nothing to repair.
			s, err = OpenLocal(ctx, dir, ReadWrite)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Repaired != "" {
				t.Errorf("repaired again: %s", s.Repaired)
			}
			if got, err := s.Resolve(ctx, manifest.Digest.String()); err != nil || got.Digest != manifest.Digest {
				t.Errorf("resolve the manifest after reopening: %v, %v", got.Digest, err)
			}
		})
	}
}

// A write of index.json that fails before its rename leaves the old
// index, whole, and no temporary file.
func TestFailedIndexWriteLeavesTheOldIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, manifest := storeWithPackage(t)
	indexPath := filepath.Join(dir, ocispec.ImageIndexFile)
	before, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenLocal(ctx, dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	errKilled := errors.New("killed half way")
	s.index.encode = func(w io.Writer, index *ocispec.Index) error {
		data, _ := json.Marshal(index)
		w.Write(data[:len(data)/2])
		return errKilled
	}
	if err := s.Tag(ctx, manifest, "c:3"); !errors.Is(err, errKilled) {
		t.Fatalf("Tag = %v, want the failed write", err)
	}
	after, err := os.ReadFile(indexPath)
	if err != nil || !bytes.Equal(after, before) {
		t.Errorf("index.json after a failed write (%v):\n%s\nwant:\n%s", err, after, before)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ocispec.ImageIndexFile) && e.Name() != ocispec.ImageIndexFile {
			t.Errorf("left beside index.json: %s", e.Name())
		}
	}
}
