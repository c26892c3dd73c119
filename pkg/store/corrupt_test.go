package store

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// TestRemoveCorrupt: the local store opened for writing removes its copy
// of a blob that does not match its digest, through ingest, leaving
// nothing there; a copy that matches is left; a reader refuses.
func TestRemoveCorrupt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	good := []byte("a layer")
	s, desc := storeBlob(t, dir, good)
	if removed, err := s.RemoveCorrupt(desc); err != nil || removed {
		t.Fatalf("a copy that matches: removed %v, %v; want left", removed, err)
	}
	file := BlobFile(dir, desc)
	alter(t, file, []byte("a layeR"))
	if removed, err := s.RemoveCorrupt(desc); err != nil || !removed {
		t.Fatalf("a corrupt copy: removed %v, %v; want removed", removed, err)
	}
	if _, err := os.Lstat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the corrupt copy is still there: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ingestDir)); len(entries) != 0 {
		t.Errorf("left in ingest: %v", entries)
	}
	if removed, err := s.RemoveCorrupt(desc); err != nil || removed {
		t.Errorf("a copy gone already: removed %v, %v", removed, err)
	}
	s.Close()

	if err := os.WriteFile(file, []byte("a layeR"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenLocal(ctx, dir, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if removed, err := r.RemoveCorrupt(desc); !errors.Is(err, ErrBusy) || removed {
		t.Errorf("a reader: removed %v, %v; want ErrBusy", removed, err)
	}
	// RemoveCorruptIn never waits for the lock: a reader holds it here.
	if removed, err := RemoveCorruptIn(dir, desc); !errors.Is(err, ErrBusy) || removed {
		t.Errorf("RemoveCorruptIn under a reader's lock: removed %v, %v; want ErrBusy", removed, err)
	}
}

// TestRemoveCorruptIn: a blob of the local store read without its lock
// is removed under the exclusive lock, taken if free.
func TestRemoveCorruptIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	good := []byte("a config")
	desc := ocispec.Descriptor{MediaType: "application/octet-stream", Digest: content.NewDescriptorFromBytes("", good).Digest, Size: int64(len(good))}
	s, err := OpenLocal(ctx, dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Push(ctx, desc, bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	alter(t, BlobFile(dir, desc), []byte("a config, longer"))
	if removed, err := RemoveCorruptIn(dir, desc); err != nil || !removed {
		t.Fatalf("removed %v, %v; want removed", removed, err)
	}
	if _, err := os.Lstat(BlobFile(dir, desc)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the corrupt copy is still there: %v", err)
	}
	// The lock is free again.
	lock := flock.New(dir + ".lock")
	if ok, err := lock.TryLock(); err != nil || !ok {
		t.Errorf("the store's lock is held after RemoveCorruptIn: %v %v", ok, err)
	}
	lock.Unlock()
}

// alter writes data where the blob file is, as a disk or a person would.
func alter(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveCorruptKeepsAGoodCopy: a blob is its digest: a descriptor
// from a manifest that gives a good copy's digest with another size (a
// hostile one, which any package may hold) does not make the copy look
// corrupt, and no package loses it.
func TestRemoveCorruptKeepsAGoodCopy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	good := []byte("a layer of a package packed here")
	s, desc := storeBlob(t, dir, good)
	for _, size := range []int64{0, 3, desc.Size + 1, -1} {
		missized := desc
		missized.Size = size
		if removed, err := s.RemoveCorrupt(missized); removed {
			t.Errorf("size %d: the good copy was removed (%v)", size, err)
		}
	}
	s.Close()
	for _, size := range []int64{3, -1} {
		missized := desc
		missized.Size = size
		if removed, err := RemoveCorruptIn(dir, missized); removed {
			t.Errorf("RemoveCorruptIn, size %d: the good copy was removed (%v)", size, err)
		}
	}
	if data, err := os.ReadFile(BlobFile(dir, desc)); err != nil || !bytes.Equal(data, good) {
		t.Errorf("the good copy is gone or altered: %v", err)
	}
}

// storeBlob opens the local store at dir for writing, with data stored.
func storeBlob(t *testing.T, dir string, data []byte) (*Store, ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	desc := content.NewDescriptorFromBytes("application/octet-stream", data)
	s, err := OpenLocal(ctx, dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return s, desc
}
