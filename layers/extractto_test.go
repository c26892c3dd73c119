package layers

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
)

// ExtractTo writes only the entries keep accepts, but checks them all:
// a hostile entry among the skipped ones, or a limit crossed by them,
// still fails the read.
func TestExtractToWritesWhatItKeeps(t *testing.T) {
	t.Parallel()
	layer := rawArchive(t, dir("a/"), file("a/SKILL.md", "a"), dir("b/"), file("b/SKILL.md", "b"), file("b/x/y", "y"))
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
		"files past the limit": {layer, ReadOptions{Limits: Limits{MaxFiles: 3}}, func(err error) bool { var c *CountError; return errors.As(err, &c) }},
		"size past the limit":  {layer, ReadOptions{Limits: Limits{MaxSize: 2}}, isSize},
	} {
		root, err := os.OpenRoot(t.TempDir())
		must(t, err)
		if _, err := ExtractTo(bytesReader(tt.layer), root, tt.opts, keepA); !tt.check(err) {
			t.Errorf("%s: %v", name, err)
		}
		root.Close()
	}
}

// The digests ExtractTo returns are those of the bytes it wrote, whatever
// the sizes: empty files, many small ones, and files that fill or span
// several of the chunks hashing reads them through.
func TestExtractToDigestsMatchTheFiles(t *testing.T) {
	t.Parallel()
	sizes := []int{0, 1, hashChunkSize, hashChunkSize - 1, 3*hashChunkSize + 7, 0, 5}
	for i := range 200 {
		sizes = append(sizes, 100+i*37)
	}
	entries := []rawEntry{dir("s/")}
	for i, size := range sizes {
		body := strings.Repeat(string(rune('a'+i%26)), size)
		entries = append(entries, file(fmt.Sprintf("s/f%03d", i), body))
	}
	dest := t.TempDir()
	root, err := os.OpenRoot(dest)
	must(t, err)
	defer root.Close()
	files, err := ExtractTo(bytesReader(rawArchive(t, entries...)), root, ReadOptions{}, nil)
	must(t, err)
	if len(files) != len(sizes) {
		t.Fatalf("%d files, want %d", len(files), len(sizes))
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dest, filepath.FromSlash(f.Path)))
		must(t, err)
		if want := digest.FromBytes(data); f.Digest != want || f.Size != int64(len(data)) {
			t.Errorf("%s: digest %s size %d, want %s %d", f.Path, f.Digest, f.Size, want, len(data))
		}
	}
}
