//go:build unix

package layers

import (
	"io/fs"
	"syscall"
)

// linkCount is the number of hard links to a file, or 1 when unknown.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
