package layers

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// A layer of empty files has no size, so only a count stops it: by
// default more than DefaultMaxFiles entries are refused while reading,
// before the entry past the limit reaches the caller.
func TestDefaultEntryLimit(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := range DefaultMaxFiles + 1 {
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("s/%06d", i), Typeflag: tar.TypeReg, Mode: 0o644}); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()

	seen := 0
	err := Walk(bytes.NewReader(buf.Bytes()), ReadOptions{}, func(Header, io.Reader) error { seen++; return nil })
	var count *CountError
	if !errors.As(err, &count) || count.Limit != DefaultMaxFiles || !strings.Contains(err.Error(), "--max-files") {
		t.Fatalf("err = %v", err)
	}
	if seen != DefaultMaxFiles {
		t.Errorf("the caller saw %d entries, want %d", seen, DefaultMaxFiles)
	}
	if Class(err) != errdefs.FailedPrecondition {
		t.Errorf("class %v", Class(err))
	}
	// Extract's cleanup after a refused entry is TestExtractRefusesHostileArchives'.
	small := rawArchive(t, dir("s/"), file("s/a", ""), file("s/b", ""))
	if err := Walk(bytes.NewReader(small), ReadOptions{Limits: Limits{MaxFiles: 3}}, func(Header, io.Reader) error { return nil }); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

// Write refuses a tree a reader would refuse.
func TestWriteEntryLimit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 4 {
		must(t, os.MkdirAll(filepath.Join(root, "s"), 0o755))
		must(t, os.WriteFile(filepath.Join(root, "s", fmt.Sprint(i)), nil, 0o644))
	}
	tree := mustScan(t, ScanOptions{Root: root})
	_, err := Write(&bytes.Buffer{}, tree, WriteOptions{Limits: Limits{MaxFiles: 3}})
	var count *CountError
	if !errors.As(err, &count) {
		t.Fatalf("err = %v", err)
	}
}
