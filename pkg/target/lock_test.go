package target

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
)

// An OCI layout opened for writing holds its lock until it is closed,
// the same lock under any name of the layout (here a link to its parent),
// whether the layout exists yet or not. Readers take none.
func TestLayoutHasOneWriterUnderAnyName(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	real, link := filepath.Join(base, "real", "out"), filepath.Join(base, "link", "out")
	o := &Opener{LockDir: filepath.Join(t.TempDir(), "locks")}
	lockOf := func(dir string) *flock.Flock {
		t.Helper()
		path, err := canonicalPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		return flock.New(lockPath(o.LockDir, "layout", path))
	}
	before := lockOf(link) // out does not exist yet

	w, err := o.Open(context.Background(), reference.Reference{Layout: real, Tag: "1.0.0"}, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]*flock.Flock{"the link, before the layout was made": before, "the link": lockOf(link), "the layout": lockOf(real)} {
		if ok, err := l.TryLock(); ok || err != nil {
			t.Errorf("the lock of %s was free while a writer held the layout (%v)", name, err)
			l.Unlock()
		}
	}
	r, err := o.Open(context.Background(), reference.Reference{Layout: link, Tag: "1.0.0"}, store.ReadOnly)
	if err != nil {
		t.Fatalf("a reader of the layout: %v", err)
	}
	r.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l := lockOf(link)
	if ok, err := l.TryLock(); !ok || err != nil {
		t.Errorf("the layout stayed locked after its writer closed it (%v)", err)
	}
	l.Unlock()
}

// --oci-layout X makes X the local store: a writer of it through the store
// (pull, pack, add) holds the lock a writer of oci:X (push, copy, pack -t)
// takes, or the two would build on one index.json at once.
func TestLayoutStoreWriterHoldsTheLayoutLock(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "x")
	o := &Opener{StoreDir: dir, Layout: dir, LockDir: filepath.Join(t.TempDir(), "locks")}
	s, err := o.OpenLocal(context.Background(), reference.Reference{}, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	path, err := canonicalPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := flock.New(lockPath(o.LockDir, "layout", path))
	if ok, err := l.TryLock(); ok || err != nil {
		l.Unlock()
		t.Errorf("the lock of oci:%s was free while the local store %s was open for writing (%v)", dir, dir, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.TryLock(); !ok || err != nil {
		t.Errorf("the layout stayed locked after the store was closed (%v)", err)
	}
	l.Unlock()
}
