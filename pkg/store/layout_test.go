package store_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/store"
)

// tree lists what is under dir, "" when it is empty or missing.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			b.WriteString(rel + "\n")
		}
		return nil
	})
	return b.String()
}

// newLayout writes a layout holding one tagged blob.
func newLayout(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	s, err := store.OpenLayout(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	blob := []byte("a blob")
	desc := content.NewDescriptorFromBytes("application/octet-stream", blob)
	if err := s.Push(ctx, desc, bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}
	if err := s.Tag(ctx, desc, "1"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Opening a layout for reading creates nothing: whatever is not a layout
// is refused, as a user error, and left as it was.
func TestOpenLayoutReadOnlyCreatesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	notLayout := t.TempDir()
	filetest.WriteFile(t, filepath.Join(notLayout, "passwd"), "root:x:0:0\n")
	file := filepath.Join(t.TempDir(), "file")
	filetest.WriteFile(t, file, "x")
	for name, tt := range map[string]struct{ dir, want string }{
		"missing":       {filepath.Join(t.TempDir(), "missing"), "no OCI layout at"},
		"empty":         {t.TempDir(), "is not an OCI image layout (no oci-layout file)"},
		"other files":   {notLayout, "is not an OCI image layout (no oci-layout file)"},
		"not directory": {file, "is not an OCI image layout: it is not a directory"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			before := tree(t, tt.dir)
			l, err := store.OpenLayoutReadOnly(ctx, tt.dir)
			if err == nil {
				l.Close()
			}
			if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), tt.dir) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("OpenLayoutReadOnly = %v, want the file system's error naming %s: %q", err, tt.dir, tt.want)
			}
			if after := tree(t, tt.dir); after != before {
				t.Errorf("%s was written to:\n%s", tt.dir, after)
			}
			if _, err := os.Stat(tt.dir); name == "missing" && !os.IsNotExist(err) {
				t.Errorf("the missing directory was created: %v", err)
			}
		})
	}

	t.Run("layout", func(t *testing.T) {
		t.Parallel()
		dir := newLayout(t)
		before := tree(t, dir)
		l, err := store.OpenLayoutReadOnly(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		desc, err := l.Resolve(ctx, "1")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Tag(ctx, desc, "2"); err == nil {
			t.Error("a layout opened for reading was tagged")
		}
		if after := tree(t, dir); after != before {
			t.Errorf("reading the layout changed it:\n%s\nwas:\n%s", after, before)
		}
	})

	// A layout is read through an os.Root: a link in it cannot lead out.
	t.Run("link out of the layout", func(t *testing.T) {
		t.Parallel()
		dir := newLayout(t)
		outside := filepath.Join(t.TempDir(), "blobs")
		if err := os.Rename(filepath.Join(dir, "blobs"), outside); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "blobs")); err != nil {
			t.Fatal(err)
		}
		l, err := store.OpenLayoutReadOnly(ctx, dir)
		if err != nil {
			return // refused on open: fine
		}
		defer l.Close()
		desc, err := l.Resolve(ctx, "1")
		if err != nil {
			return
		}
		if rc, err := l.Fetch(ctx, desc); err == nil {
			rc.Close()
			t.Error("a blob was read through a link out of the layout")
		}
	})
}

// A layout is created for writing only in a new or empty directory, and
// Discard removes exactly what opening it created.
func TestOpenLayoutForWriting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("new directory", func(t *testing.T) {
		t.Parallel()
		parent := filepath.Join(t.TempDir(), "a")
		s, err := store.OpenLayout(ctx, filepath.Join(parent, "b", "layout"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(parent, "b", "layout", "oci-layout")); err != nil {
			t.Errorf("no oci-layout file: %v", err)
		}
		if err := s.Discard(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(parent); !os.IsNotExist(err) {
			t.Errorf("Discard left the directories it created: %v", err)
		}
	})
	t.Run("new directory beside another run's", func(t *testing.T) {
		t.Parallel()
		// Both runs write into a parent the first one made; the first
		// fails, and the second's layout stays.
		parent := filepath.Join(t.TempDir(), "out")
		a, err := store.OpenLayout(ctx, filepath.Join(parent, "a"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := store.OpenLayout(ctx, filepath.Join(parent, "b"))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if err := a.Discard(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(parent, "b", "oci-layout")); err != nil {
			t.Errorf("Discard of one layout removed the other beside it: %v", err)
		}
		if _, err := os.Stat(filepath.Join(parent, "a")); !os.IsNotExist(err) {
			t.Errorf("Discard left its layout: %v", err)
		}
	})
	t.Run("empty directory", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		s, err := store.OpenLayout(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Discard(); err != nil {
			t.Fatal(err)
		}
		if left := tree(t, dir); left != "" {
			t.Errorf("Discard left:\n%s", left)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("Discard removed the directory that was there: %v", err)
		}
	})
	t.Run("other files", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		filetest.WriteFile(t, filepath.Join(dir, "passwd"), "root:x:0:0\n")
		before := tree(t, dir)
		_, err := store.OpenLayout(ctx, dir)
		if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), dir+" is not an OCI image layout (no oci-layout file) and is not empty") {
			t.Errorf("OpenLayout = %v", err)
		}
		if after := tree(t, dir); after != before {
			t.Errorf("written to:\n%s", after)
		}
	})
	t.Run("existing layout", func(t *testing.T) {
		t.Parallel()
		dir := newLayout(t)
		before := tree(t, dir)
		s, err := store.OpenLayout(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Discard(); err != nil {
			t.Fatal(err)
		}
		if after := tree(t, dir); after != before {
			t.Errorf("Discard changed a layout that was there:\n%s\nwas:\n%s", after, before)
		}
	})
	// A layout whose creation was killed before its oci-layout file is
	// finished, not refused.
	t.Run("interrupted layout", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
			t.Fatal(err)
		}
		s, err := store.OpenLayout(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
			t.Errorf("no oci-layout file: %v", err)
		}
	})
}

// A writer of an oci: layout leaves its ingest directory empty, as a
// writer of the local store does.
func TestLayoutWriterLeavesNoIngest(t *testing.T) {
	t.Parallel()
	dir := newLayout(t)
	s, err := store.OpenLayout(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, "ingest", "0123abcd_44")
	filetest.WriteFile(t, partial, "half a blob")
	s.Close()
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Errorf("ingest left after the writer closed: %v", err)
	}
}

// A layout from elsewhere whose ingest directory is a link out of it
// does not make its writer empty the directory the link names.
func TestIngestLinkOutOfTheLayoutIsLeftAlone(t *testing.T) {
	t.Parallel()
	dir := newLayout(t)
	outside := t.TempDir()
	kept := filepath.Join(outside, "keep-me")
	filetest.WriteFile(t, kept, "not the layout's")
	if err := os.RemoveAll(filepath.Join(dir, "ingest")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "ingest")); err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenLayout(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("closing the layout removed a file its ingest link points to: %v", err)
	}
}

// Reading a layout whose index.json is torn repairs nothing, and says how
// to: a writer rebuilds it.
func TestReadingATornLayoutSaysHowToRepairIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newLayout(t)
	if err := os.WriteFile(filepath.Join(dir, "index.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	_, err := store.OpenLayoutReadOnly(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), "its index.json is damaged; copying a package into the layout") {
		t.Errorf("OpenLayoutReadOnly = %v", err)
	}
	if after := tree(t, dir); after != before {
		t.Errorf("reading repaired the layout:\n%s", after)
	}
	s, err := store.OpenLayout(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	l, err := store.OpenLayoutReadOnly(ctx, dir)
	if err != nil {
		t.Fatalf("after a writer opened it: %v", err)
	}
	l.Close()
}

// TestOpenLocalRefusesBeforeLocking: a local store named by --oci-layout
// that is a directory of other files is refused before anything is
// written, the lock file beside it included.
func TestOpenLocalRefusesBeforeLocking(t *testing.T) {
	t.Parallel()
	for _, mode := range []store.Mode{store.ReadOnly, store.ReadWrite} {
		parent := t.TempDir()
		dir := filepath.Join(parent, "etc")
		filetest.WriteFile(t, filepath.Join(dir, "passwd"), "root:x:0:0\n")
		before := tree(t, parent)
		s, err := store.OpenLocal(context.Background(), dir, mode)
		if err == nil {
			s.Close()
			t.Fatalf("mode %v: OpenLocal of a directory of other files succeeded", mode)
		}
		if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "is not an OCI image layout") {
			t.Errorf("mode %v: %v (class %v), want an invalid argument naming the directory", mode, err, errdefs.Of(err))
		}
		if after := tree(t, parent); after != before {
			t.Errorf("mode %v: OpenLocal wrote beside the directory:\nbefore:\n%safter:\n%s", mode, before, after)
		}
	}
}

// TestReadingALayoutBoundsItsIndex: a layout's index.json that is a named
// pipe (which would block the reader for ever) or over MaxIndexSize is
// refused before it is read.
func TestReadingALayoutBoundsItsIndex(t *testing.T) {
	t.Parallel()
	big := newLayout(t)
	// Sparse: the size alone refuses it.
	if err := os.Truncate(filepath.Join(big, "index.json"), store.MaxIndexSize+1); err != nil {
		t.Fatal(err)
	}
	pipe := newLayout(t)
	if err := os.Remove(filepath.Join(pipe, "index.json")); err != nil {
		t.Fatal(err)
	}
	filetest.Mkfifo(t, filepath.Join(pipe, "index.json"))
	for name, tt := range map[string]struct{ dir, want string }{
		"over the limit": {big, "is over"},
		"named pipe":     {pipe, "is not a regular file"},
	} {
		var err error
		filetest.Finishes(t, "opening a layout whose index.json is a "+name, func() {
			var l *store.ReadOnlyLayout
			if l, err = store.OpenLayoutReadOnly(context.Background(), tt.dir); err == nil {
				l.Close()
			}
		})
		if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v (%v), want an invalid argument saying it %s", name, err, errdefs.Of(err), tt.want)
		}
	}
}
