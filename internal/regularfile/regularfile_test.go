package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(name, []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(name, 100); err != nil || len(data) != 100 {
		t.Fatalf("ReadFile at the limit = %d bytes, %v", len(data), err)
	}
	_, err := ReadFile(name, 99)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), name) {
		t.Errorf("ReadFile over the limit = %v, want ErrTooLarge naming the file", err)
	}
	if _, err := ReadFile(dir, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile of a directory = %v, want an error", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v, want fs.ErrNotExist", err)
	}
}

func TestReadAllLimit(t *testing.T) {
	t.Parallel()
	if data, err := ReadAll(strings.NewReader(strings.Repeat("x", 1000)), "a/MEMORY.md", 1000); err != nil || len(data) != 1000 {
		t.Fatalf("ReadAll at the limit = %d bytes, %v", len(data), err)
	}
	_, err := ReadAll(strings.NewReader(strings.Repeat("x", 1001)), "a/MEMORY.md", 1000)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "a/MEMORY.md is too large") {
		t.Errorf("ReadAll over the limit = %v", err)
	}
}
