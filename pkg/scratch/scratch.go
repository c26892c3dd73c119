// Package scratch makes the temporary directories of a stax run, and
// removes those that runs killed before they could clean up left behind.
//
// Each directory holds a lock file that its run keeps locked; the kernel
// releases the lock when the process dies, however it dies. A directory
// whose lock is free belongs to no live run, and the next run removes it.
package scratch

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// lockFile is the lock each scratch directory holds.
const lockFile = ".stax-scratch.lock"

// minAge spares directories younger than this from a sweep: a run that
// has created its directory but not yet locked it is alive.
const minAge = 10 * time.Second

// Dir creates a directory named stax-<name>-* in the temporary directory,
// locked until release, which also removes it. It first removes the
// directories of that name left by runs that died.
func Dir(name string) (dir string, release func(), err error) {
	return DirIn(os.TempDir(), "stax-"+name+"-")
}

// Sweep removes the scratch directories named stax-<name>-* in the
// temporary directory whose lock no live process holds.
func Sweep(name string) {
	SweepIn(os.TempDir(), "stax-"+name+"-")
}

// DirIn creates a directory named prefix* in parent, such as a staging
// directory beside a target, locked until release, which also removes it.
// It first removes the directories of that prefix in parent left by runs
// that died.
func DirIn(parent, prefix string) (dir string, release func(), err error) {
	SweepIn(parent, prefix)
	dir, err = os.MkdirTemp(parent, prefix+"*")
	if err != nil {
		return "", nil, err
	}
	lock := flock.New(filepath.Join(dir, lockFile))
	if err := lock.Lock(); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() {
		os.RemoveAll(dir)
		lock.Unlock()
	}, nil
}

// SweepIn removes the directories named prefix* in parent that DirIn made
// and whose lock no live process holds. Anything else of that name, a
// directory without a lock file or a symlink, is not stax's and stays.
func SweepIn(parent, prefix string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < minAge {
			continue
		}
		lockPath := filepath.Join(dir, lockFile)
		if fi, err := os.Lstat(lockPath); err != nil || !fi.Mode().IsRegular() {
			continue // not a scratch directory of this kind
		}
		lock := flock.New(lockPath)
		if ok, err := lock.TryLock(); err != nil || !ok {
			continue
		}
		os.RemoveAll(dir)
		lock.Unlock()
	}
}
