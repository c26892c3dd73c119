//go:build windows

package atomicfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, the temporary file beside it so the
// rename never crosses volumes.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, writeData(data))
}

// Write replaces path with what write writes, as WriteFile does with data.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"*")
	if err != nil {
		return err
	}
	return finish(f, write, perm, f.Name(), func() error { return os.Rename(f.Name(), path) }, os.Remove)
}

// WriteFileIn replaces name, relative to root, with data; neither the
// temporary file nor the result can leave root.
func WriteFileIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	return WriteIn(root, name, perm, writeData(data))
}

func writeData(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// WriteIn replaces name, relative to root, with what write writes, as
// WriteFileIn does with data: for content too large to hold in memory.
func WriteIn(root *os.Root, name string, perm fs.FileMode, write func(io.Writer) error) error {
	suffix := make([]byte, 8)
	rand.Read(suffix)
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+hex.EncodeToString(suffix))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	return finish(f, write, perm, tmp, func() error { return root.Rename(tmp, name) }, root.Remove)
}

// finish writes to f with write, syncs and closes it, and renames it into
// place; on any failure the temporary file is removed.
func finish(f *os.File, write func(io.Writer) error, perm fs.FileMode, tmp string, rename func() error, remove func(string) error) error {
	err := f.Chmod(perm)
	if err == nil {
		w := bufio.NewWriterSize(f, 64<<10)
		if err = write(w); err == nil {
			err = w.Flush()
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename()
	}
	if err != nil {
		remove(tmp)
	}
	return err
}
