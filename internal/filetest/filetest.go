// Package filetest writes file trees for tests.
package filetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files, slash-separated paths under dir to their contents,
// creating the folders they need.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		WriteFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
}

// WriteFile writes content to path, creating the folders it needs.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
