// Package scratch makes the temporary directories of a stax run, and
// removes those that runs killed before they could clean up left behind.
//
// Each directory holds a lock file that its run keeps locked; the kernel
// releases the lock when the process dies, however it dies. A directory
// whose lock is free belongs to no live run, and the next run removes it.
//
// The lock file is the first thing a run puts in its directory and the
// last it takes out, so that a run killed while it cleans up leaves a
// directory the next run recognizes and removes. A directory of the
// shape Dir makes with no lock file in it was left by a run killed
// between making it and locking it, or by an older stax, which removed
// the lock first; it is removed too once it is old enough that no run can
// still be about to lock it (see minAge).
package scratch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// lockFile is the lock each scratch directory holds.
const lockFile = ".stax-scratch.lock"

// minAge spares directories younger than this from a sweep. Making a
// directory and locking it are two steps: between them the directory has
// no lock file, or one not yet locked, and belongs to a live run all the
// same. A run takes the two steps one after the other, so a directory
// this old without a locked lock file has no run that will lock it. The
// directory's modification time counts: it changes when its lock file is
// made, and when a run cleaning up removes what is in it.
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
	// The lock file goes in first, and release takes it out last: from
	// here on the directory is never without it while this run lives.
	lock := flock.New(filepath.Join(dir, lockFile))
	if err := lock.Lock(); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() {
		remove(dir)
		lock.Unlock()
	}, nil
}

// SweepIn removes the directories named prefix* in parent that DirIn made
// and whose lock no live process holds. Anything else of that name, a
// symlink or a directory without a lock file whose name DirIn could not
// have given, is not stax's and stays.
func SweepIn(parent, prefix string) {
	sweepIn(parent, prefix, time.Now())
}

// sweepIn is SweepIn at the time now.
func sweepIn(parent, prefix string, now time.Time) {
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
		if err != nil || now.Sub(info.ModTime()) < minAge {
			continue
		}
		lockPath := filepath.Join(dir, lockFile)
		fi, err := os.Lstat(lockPath)
		switch {
		case errors.Is(err, os.ErrNotExist) && madeByDirIn(e.Name(), prefix):
			// Killed before it locked, or while an older stax cleaned
			// up; no run locks a directory this old (see minAge).
			os.RemoveAll(dir)
			continue
		case err != nil || !fi.Mode().IsRegular():
			continue // not a scratch directory of this kind
		}
		lock := flock.New(lockPath)
		if ok, err := lock.TryLock(); err != nil || !ok {
			continue
		}
		remove(dir)
		lock.Unlock()
	}
}

// madeByDirIn reports whether name is one os.MkdirTemp gives for
// prefix+"*": the prefix and a decimal number.
func madeByDirIn(name, prefix string) bool {
	n := strings.TrimPrefix(name, prefix)
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// remove removes a scratch directory whose lock the caller holds, the
// lock file last: a run killed part way leaves the lock file in place,
// and the next sweep finds the directory and finishes the job. Should
// anything else stay, so does the lock file.
func remove(dir string) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return
	}
	for _, name := range names {
		if name == lockFile {
			continue
		}
		if err := removeEntry(filepath.Join(dir, name)); err != nil {
			return
		}
	}
	os.Remove(filepath.Join(dir, lockFile))
	os.Remove(dir)
}

// removeEntry removes one entry of a scratch directory; tests stop a
// cleanup part way through here.
var removeEntry = os.RemoveAll
