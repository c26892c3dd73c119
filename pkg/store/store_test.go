package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Partial blobs a killed writer left in ingest/ are removed by the next
// writer, which holds the store's exclusive lock; a reader leaves them.
func TestWriterRemovesDeadIngest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	partial := filepath.Join(dir, "ingest", "0123abcd_42")
	if err := os.MkdirAll(filepath.Dir(partial), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(partial, make([]byte, 1<<20), 0o444); err != nil {
		t.Fatal(err)
	}
	r, err := OpenLocal(context.Background(), dir, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := os.Stat(partial); err != nil {
		t.Fatalf("a reader removed ingest: %v", err)
	}
	w, err := OpenLocal(context.Background(), dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Errorf("a partial blob of a dead writer is still there: %v", err)
	}
}

// A writer leaves ingest/ empty when it closes, whatever failed meanwhile.
func TestWriterLeavesNoIngest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	w, err := OpenLocal(context.Background(), dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, "ingest", "0123abcd_43")
	if err := os.MkdirAll(filepath.Dir(partial), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(partial, []byte("half a blob"), 0o444); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Errorf("ingest left after the writer closed: %v", err)
	}
}
