package install

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// testLayer packs skills (name → SKILL.md) into a layer, and returns it
// with each skill's digest and a count of the times it was opened.
func testLayer(t *testing.T, skills map[string]string) (*Layer, map[string]digest.Digest, *int) {
	t.Helper()
	root := t.TempDir()
	for name, body := range skills {
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := layers.Scan(layers.ScanOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := layers.Write(&buf, tree, layers.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opened := new(int)
	l := &Layer{Name: "test", Read: layers.ReadOptions{Digest: res.Digest}, Open: func(_ context.Context, read func(io.Reader) error) error {
		*opened++
		return read(bytes.NewReader(buf.Bytes()))
	}}
	return l, layers.SkillDigests(res.Files), opened
}

// Only the skills asked for are written from a layer; the layer is read
// once for all of them, and not at all when they are in place.
func TestInstallFromLayerWritesOnlyItsSkills(t *testing.T) {
	l, digests, opened := testLayer(t, map[string]string{"a": "a\n", "b": "b ${STAX_SKILL_DIR}\n", "loser": "x\n"})
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	skills := []Skill{
		{Path: "a", Layer: l, Package: "p", Digest: digests["a"]},
		{Path: "b", Layer: l, Package: "p", Digest: digests["b"]},
	}
	if _, err := Install(context.Background(), skills, Options{Dir: dir, LockDir: locks}); err != nil {
		t.Fatal(err)
	}
	if *opened != 1 {
		t.Errorf("layer opened %d times, want once", *opened)
	}
	if _, err := os.Stat(filepath.Join(dir, "loser")); !os.IsNotExist(err) {
		t.Error("a skill nobody asked for was written")
	}
	data, err := os.ReadFile(filepath.Join(dir, "b", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "b " + filepath.Join(dir, "b") + "\n"; string(data) != want {
		t.Errorf("b/SKILL.md = %q, want %q", data, want)
	}

	res, err := Install(context.Background(), skills, Options{Dir: dir, LockDir: locks})
	if err != nil {
		t.Fatal(err)
	}
	if *opened != 1 || len(res.Unchanged) != 2 {
		t.Errorf("re-install: layer opened %d times in all, unchanged %v; want once, [a b]", *opened, res.Unchanged)
	}
}

// A skill whose files do not hash to the digest its package records is
// refused (exit 6), and nothing is installed.
func TestInstallFromLayerChecksSkillDigest(t *testing.T) {
	l, digests, _ := testLayer(t, map[string]string{"a": "a\n", "b": "b\n"})
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	skills := []Skill{
		{Path: "a", Layer: l, Package: "p", Digest: digests["a"]},
		{Path: "b", Layer: l, Package: "p", Digest: digests["a"]},
	}
	_, err := Install(context.Background(), skills, Options{Dir: dir, LockDir: locks})
	if errdefs.Of(err) != errdefs.DataLoss {
		t.Fatalf("err = %v, want class %v", err, errdefs.DataLoss)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the folder holds %v after a refused install", entries)
	}
}
