package target

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/stax-dev/stax/internal/filelock"
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
		return flock.New(filepath.Join(o.LockDir, filelock.Bucketed("layout", path)))
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
	l := flock.New(filepath.Join(o.LockDir, filelock.Bucketed("layout", path)))
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

// A writer that finds a layout's lock held says, once, what it waits for,
// and gives up when its context ends, naming the holder.
func TestLayoutWriterSaysItWaits(t *testing.T) {
	t.Parallel()
	var notes bytes.Buffer
	o := &Opener{LockDir: filepath.Join(t.TempDir(), "locks"), Notes: &notes}
	ref := reference.Reference{Layout: filepath.Join(t.TempDir(), "out"), Tag: "1.0.0"}
	w, err := o.Open(context.Background(), ref, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = o.Open(ctx, ref, store.ReadWrite)
	if err == nil || !strings.Contains(err.Error(), "another stax writing the OCI layout") {
		t.Errorf("err = %v: want that another stax writes the layout", err)
	}
	if n := strings.Count(notes.String(), "note: waiting for another stax writing the OCI layout "+ref.Layout+" to finish\n"); n != 1 {
		t.Errorf("the waiting writer said %d times that it waits:\n%s", n, notes.String())
	}
}

// The locks of layouts (and of tags) are one file a bucket of names, not
// one a name ever locked: $STAX_HOME/locks stays small however many
// layouts are written.
func TestLayoutLockFilesAreFew(t *testing.T) {
	t.Parallel()
	o := &Opener{LockDir: filepath.Join(t.TempDir(), "locks")}
	base := t.TempDir()
	for i := range 300 {
		w, err := o.Open(context.Background(), reference.Reference{Layout: filepath.Join(base, strconv.Itoa(i)), Tag: "1"}, store.ReadWrite)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Discard(); err != nil {
			t.Fatal(err)
		}
	}
	files, err := os.ReadDir(o.LockDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) > 256 {
		t.Errorf("%d lock files for 300 layouts, want at most 256", len(files))
	}
}
