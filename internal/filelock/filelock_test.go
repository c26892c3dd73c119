package filelock

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// A lock another holder has is waited for, with one call of waiting,
// until ctx ends; the error then says another stax holds it.
func TestLockWaitsForTheHolderAndSaysSoOnce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "locks")
	unlock, err := Lock(context.Background(), dir, Named("folder", "/a"), "install into /a", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The note is the signal that it waits: the wait then ends with ctx.
	waits := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = Lock(ctx, dir, Named("folder", "/a"), "install into /a", func() { waits++; cancel() })
	if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "another stax install into /a holds") || waits != 1 {
		t.Errorf("err = %v after %d notes: want one note, then that another stax holds the lock", err, waits)
	}
	unlock()
	again, err := Lock(context.Background(), dir, Named("folder", "/a"), "install into /a", func() { t.Error("waited for a free lock") })
	if err != nil {
		t.Fatal(err)
	}
	again()
}

// A holder in another process (a descriptor of its own) is waited for
// as one in this process is.
func TestLockWaitsForAnotherDescriptor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := flock.New(filepath.Join(dir, Named("tag", "r:1")))
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	done, waiting := make(chan error, 1), make(chan struct{})
	go func() {
		unlock, err := Lock(context.Background(), dir, Named("tag", "r:1"), "claiming r:1", func() { close(waiting) })
		if err == nil {
			unlock()
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("took a lock another holder has: %v", err)
	case <-waiting:
	}
	other.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A lock file that cannot be opened (here a link to a directory that
// does not exist; no permission is another cause) is not another stax's
// lock: the error says what it is.
func TestLockNamesALockFileItCannotUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "gone", "x"), filepath.Join(dir, Named("tag", "r:1"))); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	_, err := Lock(context.Background(), dir, Named("tag", "r:1"), "claiming r:1", nil)
	if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "cannot use the lock file") || strings.Contains(err.Error(), "another stax") {
		t.Errorf("err = %v: want one that says the lock file cannot be used", err)
	}
}

// Bucketed names give at most 256 files of a kind.
func TestBucketedNamesAreFew(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for i := range 5000 {
		names[Bucketed("tag", "registry.example/r:"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String())] = true
	}
	if len(names) > 256 {
		t.Errorf("%d lock files for one kind, want at most 256", len(names))
	}
}
