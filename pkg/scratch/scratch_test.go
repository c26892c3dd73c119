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
