package scratch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// Stage makes the directory dest whole or not at all: fill writes into a
// new, empty directory staged beside dest, which is renamed to dest once
// fill has returned nil. dest must then not exist or be an empty
// directory, else the error is a failed precondition and dest stays as it
// was.
//
// The staging directory is a scratch directory named prefix* (see DirIn):
// this run removes it whatever happens, and should the run be killed, the
// next Stage beside dest with the same prefix removes it.
func Stage(dest, prefix string, fill func(dir string) error) error {
	return stage(dest, prefix, fill, removeEmptyDir)
}

// Replace is Stage for a dest that may hold files, all of which the
// caller has found are to go: a dest of pages a generator wrote before.
// dest moves into the staging directory, which is removed with it, and
// what fill wrote takes its place; a run killed between the two renames
// leaves no dest, which the next run writes, and the old one in a staging
// directory the next run removes. A fill that fails leaves dest as it
// was.
func Replace(dest, prefix string, fill func(dir string) error) error {
	return stage(dest, prefix, fill, nil)
}

// stage is Stage, with dest made way for by clear; nil moves dest aside
// into the staging directory.
func stage(dest, prefix string, fill func(dir string) error, clear func(dest string) error) error {
	// A trailing separator would make dest its own parent, and put the
	// staging directory inside it.
	dest = filepath.Clean(dest)
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return errdefs.MarkLocal(err)
	}
	staging, release, err := DirIn(parent, prefix)
	if err != nil {
		return errdefs.MarkLocal(fmt.Errorf("stage %s: %w", dest, err))
	}
	defer release()
	// What fill writes goes into a directory of its own, which is what
	// moves: the lock file stays behind in the staging directory, held
	// until release removes both.
	out := filepath.Join(staging, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		return errdefs.MarkLocal(err)
	}
	if err := fill(out); err != nil {
		return err
	}
	if clear == nil {
		clear = func(dest string) error {
			err := os.Rename(dest, filepath.Join(staging, "old"))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return errdefs.MarkLocal(fmt.Errorf("move %s aside: %w", dest, err))
			}
			return nil
		}
	}
	if err := clear(dest); err != nil {
		return err
	}
	if err := os.Rename(out, dest); err != nil {
		return errdefs.MarkLocal(fmt.Errorf("move what was staged into %s: %w", dest, err))
	}
	return nil
}

// ErrOccupied is the reason Stage refuses a dest that holds files, or is
// not a directory: a caller adds the way out its user has.
var ErrOccupied = errors.New("stax writes only into a new or empty one")

// removeEmptyDir makes way for dest: nothing there, or an empty directory.
// os.Rename cannot replace a directory that holds files, and an empty one
// holds nothing to lose.
func removeEmptyDir(dest string) error {
	info, err := os.Lstat(dest)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	if !info.IsDir() || os.Remove(dest) != nil {
		return errdefs.Precondition(fmt.Errorf("%s exists and is not an empty directory: %w", dest, ErrOccupied))
	}
	return nil
}
