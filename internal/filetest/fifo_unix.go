//go:build unix

package filetest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mkfifo makes a named pipe at path, creating the folders it needs. When
// the test ends, a reader still blocked opening the pipe (the defect a
// test looks for) is released, so that it does not outlive the test.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Fails with ENXIO when no reader is waiting, which is the
		// expected case.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}
