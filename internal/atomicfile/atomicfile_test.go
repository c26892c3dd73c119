package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stax.lock")
	for _, content := range []string{"old\n", "new\n"} {
		if err := WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("content = %q, %v; want %q", got, err, content)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the folder, want only the file", len(entries))
	}
}

func TestWriteFileInStaysInRoot(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := WriteFileIn(root, "record.json", []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "record.json")); err != nil || string(got) != "{}\n" {
		t.Errorf("content = %q, %v", got, err)
	}
	if err := WriteFileIn(root, "../outside.json", []byte("x"), 0o644); err == nil {
		t.Error("a name leading out of the root was written")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.json")); err == nil {
		t.Error("outside.json exists beside the root")
	}
}
