//go:build windows

package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, the temporary file beside it so the
// rename never crosses volumes.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"*")
	if err != nil {
		return err
	}
	return finish(f, data, perm, f.Name(), func() error { return os.Rename(f.Name(), path) }, os.Remove)
}

// WriteFileIn replaces name, relative to root, with data; neither the
// temporary file nor the result can leave root.
func WriteFileIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	suffix := make([]byte, 8)
	rand.Read(suffix)
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+hex.EncodeToString(suffix))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	return finish(f, data, perm, tmp, func() error { return root.Rename(tmp, name) }, root.Remove)
}

// finish writes data to f, syncs and closes it, and renames it into
// place; on any failure the temporary file is removed.
func finish(f *os.File, data []byte, perm fs.FileMode, tmp string, rename func() error, remove func(string) error) error {
	err := f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
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
