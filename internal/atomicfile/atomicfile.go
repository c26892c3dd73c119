// Package atomicfile replaces a file in one step: a reader sees the old
// content or the new, never a mix, and the new content is on disk (fsynced)
// before it replaces the old, so a crash leaves one or the other.
//
// On Unix it is github.com/google/renameio/v2, which does exactly this and
// can write through an *os.Root; renameio does not build for Windows, where
// the same steps are taken with a temporary file and os.Rename (MoveFileEx
// with MOVEFILE_REPLACE_EXISTING).
package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// staleAge spares temporary files younger than this from RemoveStale: a
// write in progress takes milliseconds, so an older one was killed.
const staleAge = 10 * time.Second

// IsTemporary reports whether name is the name of a temporary file that
// WriteFile or WriteFileIn makes beside the file named target: a dot, the
// target's name, and a random number.
func IsTemporary(name, target string) bool {
	suffix, ok := strings.CutPrefix(name, "."+target)
	if !ok || suffix == "" {
		return false
	}
	return strings.Trim(suffix, "0123456789abcdef") == ""
}

// RemoveStale removes the temporary files that writes of path killed
// before their rename left beside it, and only those: regular files named
// as IsTemporary says, not modified for a while.
func RemoveStale(path string) {
	dir, target := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsTemporary(e.Name(), target) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) >= staleAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
