package layers

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ExtractTo writes only the entries keep accepts, but checks them all:
// a hostile entry among the skipped ones, or a limit crossed by them,
// still fails the read.
func TestExtractToWritesWhatItKeeps(t *testing.T) {
	layer := rawArchive(t, dir("a/"), file("a/SKILL.md", "a"), dir("b/"), file("b/SKILL.md", "b"), file("b/x/y", "y"), file("top", "t"))
	keepA := func(h Header) bool { top, _, _ := strings.Cut(h.Path, "/"); return top == "a" }

	dest := t.TempDir()
	root, err := os.OpenRoot(dest)
	must(t, err)
	defer root.Close()
	files, err := ExtractTo(bytesReader(layer), root, ReadOptions{}, keepA)
	must(t, err)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if !slices.Equal(paths, []string{"a/SKILL.md"}) {
		t.Errorf("files %v, want a/SKILL.md", paths)
	}
	entries, _ := os.ReadDir(dest)
	if len(entries) != 1 || entries[0].Name() != "a" {
		t.Errorf("extracted %v, want only a", entries)
	}
	if data, err := os.ReadFile(filepath.Join(dest, "a", "SKILL.md")); err != nil || string(data) != "a" {
		t.Errorf("a/SKILL.md: %q %v", data, err)
	}

	for name, tt := range map[string]struct {
		layer []byte
		opts  ReadOptions
		check func(error) bool
	}{
		"unsafe skipped entry": {rawArchive(t, file("a/SKILL.md", "a"), file("b/../../x", "x")), ReadOptions{}, isUnsafe},
		"files past the limit": {layer, ReadOptions{MaxFiles: 3}, func(err error) bool { var c *CountError; return errors.As(err, &c) }},
		"size past the limit":  {layer, ReadOptions{MaxSize: 2}, isSize},
	} {
		root, err := os.OpenRoot(t.TempDir())
		must(t, err)
		if _, err := ExtractTo(bytesReader(tt.layer), root, tt.opts, keepA); !tt.check(err) {
			t.Errorf("%s: %v", name, err)
		}
		root.Close()
	}
}
