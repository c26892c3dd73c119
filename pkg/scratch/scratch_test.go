package scratch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// plant makes a scratch directory as a run would, aged past minAge.
func plant(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "stax-"+name+"-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, lockFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// A killed run's directory (its lock free) is removed by the next run; a
// live run's (its lock held) is not, nor is a directory stax did not make.
func TestDirSweepsDeadRunsOnly(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dead := plant(t, "install")
	live := plant(t, "install")
	held := flock.New(filepath.Join(live, lockFile))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	foreign := filepath.Join(os.TempDir(), "stax-install-not-ours")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}

	dir, release, err := Dir("install")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead run's directory is still there: %v", err)
	}
	for _, keep := range []string{live, foreign, dir} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
	release()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("release left %s", dir)
	}
}

// mkdirAt makes dir holding files, with its modification time at.
func mkdirAt(t *testing.T, dir string, at time.Time, files ...string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(dir, at, at); err != nil {
		t.Fatal(err)
	}
}

// A directory of the shape Dir makes with no lock file in it (a run was
// killed before it locked it, or while an older stax, removing the lock
// first, cleaned up) is removed once it is older than any run takes to
// lock its directory; before that it may be a live run's, and stays. A
// directory of that prefix DirIn could not have named stays.
func TestSweepRemovesLocklessDirectoriesOnceOld(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	made := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	halfRemoved := filepath.Join(parent, "stax-build-123")
	beingMade := filepath.Join(parent, "stax-build-456")
	foreign := filepath.Join(parent, "stax-build-not-ours")
	mkdirAt(t, halfRemoved, made, "manifest.json")
	mkdirAt(t, beingMade, made)
	mkdirAt(t, foreign, made, "notes.md")

	sweepIn(parent, "stax-build-", made.Add(minAge/2))
	for _, dir := range []string{halfRemoved, beingMade, foreign} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("a sweep soon after %s was made removed it: %v", dir, err)
		}
	}
	sweepIn(parent, "stax-build-", made.Add(time.Hour))
	for _, dir := range []string{halfRemoved, beingMade} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the lock-less %s outlived a later sweep (%v)", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(foreign, "notes.md")); err != nil {
		t.Errorf("a directory stax did not name was removed: %v", err)
	}
}

// A cleanup stopped part way (a kill) leaves the lock file in place,
// whatever order the directory lists its entries in: the next sweep
// recognizes the directory and removes the rest.
func TestStoppedCleanupKeepsTheLockForTheNextSweep(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "stax-build-789")
	// Many entries, so that some come before the lock file in any order.
	files := []string{lockFile}
	for i := range 20 {
		files = append(files, "blob"+string(rune('a'+i)))
	}
	mkdirAt(t, dir, time.Now(), files...)
	removed := 0
	removeEntry = func(path string) error {
		if removed++; removed > 3 {
			panic("killed")
		}
		return os.RemoveAll(path)
	}
	func() {
		defer func() { removeEntry = os.RemoveAll; recover() }()
		remove(dir)
	}()
	entries, _ := os.ReadDir(dir)
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err != nil || len(entries) < 2 {
		t.Fatalf("a cleanup stopped part way left %d entries, and its lock file: %v", len(entries), err)
	}
	sweepIn(parent, "stax-build-", time.Now().Add(time.Hour))
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the next sweep left the half-removed %s (%v)", dir, err)
	}
}
