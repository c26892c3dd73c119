//go:build !windows

package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/renameio/v2"
)

// The temporary file the writer makes, left as a killed write leaves it,
// is what RemoveStale removes once it is not fresh; the file itself and
// files of similar names stay.
func TestRemoveStaleRemovesTheWritersTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stax.lock")
	if err := WriteFile(path, []byte("lock\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pending, err := renameio.TempFile(dir, path)
	if err != nil {
		t.Fatal(err)
	}
	left := pending.Name()
	pending.File.Close() // killed: neither renamed nor cleaned up
	if !IsTemporary(filepath.Base(left), "stax.lock") {
		t.Fatalf("IsTemporary(%q) = false for the writer's own temporary", filepath.Base(left))
	}
	other := filepath.Join(dir, ".stax.lock.orig")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	RemoveStale(path)
	if _, err := os.Stat(left); err != nil {
		t.Errorf("a fresh temporary (a write in progress) was removed: %v", err)
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{left, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	RemoveStale(path)
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("a killed write's %s is still there (%v)", left, err)
	}
	for _, p := range []string{path, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
