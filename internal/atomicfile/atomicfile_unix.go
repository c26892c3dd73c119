//go:build !windows

package atomicfile

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// WriteFile replaces path with data, the temporary file beside it so the
// rename never crosses file systems.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return renameio.WriteFile(path, data, perm, renameio.WithTempDir(filepath.Dir(path)))
}

// WriteFileIn replaces name, relative to root, with data; neither the
// temporary file nor the result can leave root.
func WriteFileIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	return renameio.WriteFile(name, data, perm, renameio.WithRoot(root))
}

// Write replaces path with what write writes, as WriteFile does with data.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return writeWith(write, renameio.WithPermissions(perm), renameio.WithExistingPermissions(), renameio.WithTempDir(filepath.Dir(path)))(path)
}

// WriteIn replaces name, relative to root, with what write writes, as
// WriteFileIn does with data: for content too large to hold in memory.
func WriteIn(root *os.Root, name string, perm fs.FileMode, write func(io.Writer) error) error {
	return writeWith(write, renameio.WithPermissions(perm), renameio.WithExistingPermissions(), renameio.WithRoot(root))(name)
}

func writeWith(write func(io.Writer) error, opts ...renameio.Option) func(string) error {
	return func(name string) error {
		t, err := renameio.NewPendingFile(name, opts...)
		if err != nil {
			return err
		}
		defer t.Cleanup()
		w := bufio.NewWriterSize(t, 64<<10)
		if err := write(w); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		return t.CloseAtomicallyReplace()
	}
}
