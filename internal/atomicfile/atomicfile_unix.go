//go:build !windows

package atomicfile

import (
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
