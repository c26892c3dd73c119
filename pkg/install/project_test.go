package install

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A project's lock is one lock whatever name the project is reached by:
// a second command, through a link to the project, says it waits and
// waits, until its context ends; once the first lets go, it takes it at
// once.
func TestLockProjectWaitsForTheProjectByAnyName(t *testing.T) {
	t.Parallel()
	locks, proj := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(proj, link); err != nil {
		t.Fatal(err)
	}
	unlock, err := LockProject(context.Background(), locks, proj, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := false
	_, err = LockProject(ctx, locks, link, func() { waited = true; cancel() })
	if err == nil || !waited {
		t.Fatalf("a second lock of the project through a link: %v, waited %v; want it to wait until its context ended", err, waited)
	}
	unlock()
	again, err := LockProject(context.Background(), locks, link, func() { t.Error("waited for a lock no one holds") })
	if err != nil {
		t.Fatal(err)
	}
	again()
}
