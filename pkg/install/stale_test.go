package install

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// plantAged writes a file as a killed write left it, an hour ago.
func plantAged(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// An install removes the temporary files that killed writes of stax.lock
// and of the install record left, under the names the atomic writer gives
// them; a fresh one (a write in progress) and the user's files of similar
// names stay.
func TestInstallRemovesDeadTemporaries(t *testing.T) {
	w := newCrashWorld(t, recordPlaces[0])
	deadLock := filepath.Join(w.root, ".stax.lock8674665223082153551")
	deadRecord := filepath.Join(w.dirs[0], "."+RecordFile+"5577006791947779410")
	plantAged(t, deadLock)
	plantAged(t, deadRecord)
	fresh := filepath.Join(w.root, ".stax.lock6129484611666145821")
	if err := os.WriteFile(fresh, []byte("being written"), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := []string{filepath.Join(w.root, ".stax.lock.bak"), filepath.Join(w.root, "stax.lock1"), filepath.Join(w.root, ".stax.lockfile")}
	for _, p := range mine {
		plantAged(t, p)
	}

	if err := w.next(t); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{deadLock, deadRecord} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a killed write's %s is still there (%v)", p, err)
		}
	}
	for _, p := range append(mine, fresh) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
