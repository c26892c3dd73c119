package snapshot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
)

// foreignLayer is a layer as another writer might produce it: entries out
// of order, no directory entries.
func foreignLayer(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name, content string
		mode          int64
	}{
		{"b/scripts/run.sh", "#!/bin/sh\n", 0o755},
		{"b/SKILL.md", "---\nname: b\ndescription: [unclosed\n---\n", 0o644},
		{"a/SKILL.md", "---\nname: a\ndescription: A.\nmetadata:\n  version: 2.0.0\n---\nbody\n", 0o644},
		{"a/references/SKILL.md", "---\nname: nested\n---\n", 0o644},
	} {
		hdr := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.content)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRead(t *testing.T) {
	layer := foreignLayer(t)
	snap, err := Read(bytes.NewReader(layer), layers.ReadOptions{Digest: digest.FromBytes(layer)})
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Dirs(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("Dirs = %q, want [a b]", got)
	}
	a, b := snap.Skills["a"], snap.Skills["b"]
	if len(a.Files) != 2 || a.Files[0].Path != "SKILL.md" || a.Files[1].Path != "references/SKILL.md" {
		t.Errorf("a's files = %+v, want sorted and relative to a/", a.Files)
	}
	// Only the skill's own SKILL.md is its frontmatter.
	if a.Frontmatter["name"] != "a" || a.Frontmatter["metadata"].(map[string]any)["version"] != "2.0.0" || a.FrontmatterErr != nil {
		t.Errorf("a's frontmatter = %v (%v)", a.Frontmatter, a.FrontmatterErr)
	}
	if b.Frontmatter != nil || b.FrontmatterErr == nil {
		t.Errorf("b's frontmatter = %v, err %v; want a parse error", b.Frontmatter, b.FrontmatterErr)
	}
	if b.Files[1].Path != "scripts/run.sh" || !b.Files[1].Executable {
		t.Errorf("b's files = %+v", b.Files)
	}
	if a.Digest() != layers.SkillDigests(append(prefixed("a", a.Files), prefixed("b", b.Files)...))["a"] {
		t.Errorf("Digest differs from layers.SkillDigests")
	}
}

func prefixed(dir string, files []layers.FileDigest) []layers.FileDigest {
	out := make([]layers.FileDigest, len(files))
	for i, f := range files {
		f.Path = dir + "/" + f.Path
		out[i] = f
	}
	return out
}

func TestReadChecksTheDigest(t *testing.T) {
	layer := foreignLayer(t)
	_, err := Read(bytes.NewReader(layer), layers.ReadOptions{Digest: digest.FromString("other")})
	var mismatch *layers.DigestMismatchError
	if !errors.As(err, &mismatch) {
		t.Errorf("err = %v, want a digest mismatch", err)
	}
}
