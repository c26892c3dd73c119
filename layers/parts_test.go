package layers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
)

// writeOutline outlines root with ScanParts and writes it part by part.
func writeOutline(t testing.TB, opts ScanOptions) (WriteResult, []byte, map[string]digest.Digest) {
	t.Helper()
	o, err := ScanParts(opts, func(*Tree) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	digests := map[string]digest.Digest{}
	res, err := o.Write(&buf, WriteOptions{}, func(files []FileDigest) error {
		for k, v := range SkillDigests(files) {
			digests[k] = v
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Outline.Write: %v", err)
	}
	return res, buf.Bytes(), digests
}

// Written part by part, a tree is the same layer, byte for byte, as
// written whole: the golden digests hold.
func TestOutlineWriteIsTheSameLayer(t *testing.T) {
	t.Parallel()
	generated := t.TempDir()
	buildTree(t, generated, append(generatedTree(),
		fileSpec{path: "a.md/SKILL.md", body: "a skill directory sorted before the directory a/"},
		fileSpec{path: "a/SKILL.md", body: "a"},
		fileSpec{path: "a-b/SKILL.md", body: "a-b"},
	), defaultBuild)
	for _, root := range []string{goldenFixture, generated} {
		whole, wholeBytes := writeLayer(t, root)
		res, data, digests := writeOutline(t, ScanOptions{Root: root})
		if !bytes.Equal(data, wholeBytes) || res.Digest != whole.Digest || res.Size != whole.Size {
			t.Errorf("%s: part by part %s (%d bytes), whole %s (%d bytes)", root, res.Digest, res.Size, whole.Digest, whole.Size)
		}
		want := SkillDigests(whole.Files)
		if fmt.Sprint(digests) != fmt.Sprint(want) {
			t.Errorf("%s: skill digests %v, want %v", root, digests, want)
		}
	}
	if _, _, digests := writeOutline(t, ScanOptions{Root: goldenFixture}); digests["pdf-tools"] != goldenSkillDigests["pdf-tools"] {
		t.Errorf("pdf-tools digest %s, want %s", digests["pdf-tools"], goldenSkillDigests["pdf-tools"])
	}
}

// ScanParts hands over one top-level entry at a time, in layer order, and
// its outline has the totals Scan's tree has.
func TestScanPartsInLayerOrder(t *testing.T) {
	t.Parallel()
	root := built(t, []fileSpec{
		{path: "b/SKILL.md", body: "b"}, {path: "a/x/y", body: "xy"}, {path: "a.md", body: "top"}, {path: "a-b/z", body: "z"},
	}, defaultBuild)
	var tops []string
	o, err := ScanParts(ScanOptions{Root: root}, func(part *Tree) error {
		var paths []string
		for _, e := range part.Entries {
			paths = append(paths, e.Path)
		}
		tops = append(tops, strings.Join(paths, ","))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a-b,a-b/z", "a.md", "a,a/x,a/x/y", "b,b/SKILL.md"}
	if strings.Join(tops, " ") != strings.Join(want, " ") {
		t.Errorf("parts %q, want %q", tops, want)
	}
	tree := mustScan(t, ScanOptions{Root: root})
	if o.Size != tree.Size() || o.Entries != len(tree.Entries) || len(o.Problems) != 0 {
		t.Errorf("outline size %d entries %d problems %v; tree %d, %d", o.Size, o.Entries, o.Problems, tree.Size(), len(tree.Entries))
	}
}

// A tree that changed between the scan and the write fails the write, and
// what was written is no layer: the write never packs what was not
// scanned (and so validated).
func TestOutlineWriteRefusesChangedTree(t *testing.T) {
	t.Parallel()
	for name, change := range map[string]func(root string) error{
		"file added": func(root string) error {
			return os.WriteFile(filepath.Join(root, "b", "new.md"), []byte("not scanned"), 0o644)
		},
		"skill added": func(root string) error { return os.Mkdir(filepath.Join(root, "c"), 0o755) },
		"skill removed": func(root string) error {
			return os.RemoveAll(filepath.Join(root, "b"))
		},
		"file resized": func(root string) error {
			return os.WriteFile(filepath.Join(root, "a", "SKILL.md"), []byte("longer than before"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := built(t, []fileSpec{{path: "a/SKILL.md", body: "a"}, {path: "b/SKILL.md", body: "b"}}, defaultBuild)
			o, err := ScanParts(ScanOptions{Root: root}, func(*Tree) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			must(t, change(root))
			var buf bytes.Buffer
			if _, err := o.Write(&buf, WriteOptions{}, nil); err == nil || !strings.Contains(err.Error(), "changed since it was scanned") {
				t.Fatalf("err = %v, want the tree changed since it was scanned", err)
			}
			if err := Walk(bytes.NewReader(buf.Bytes()), ReadOptions{}, func(Header, io.Reader) error { return nil }); err == nil {
				t.Error("the partial output reads as a valid layer")
			}
		})
	}
}

// The outline refuses what Write refuses, before writing anything.
func TestOutlineWriteRefusesBeforeWriting(t *testing.T) {
	t.Parallel()
	root := built(t, []fileSpec{{path: "a/SKILL.md", body: "0123456789"}, {path: "b/SKILL.md", body: "b"}}, defaultBuild)
	must(t, os.Symlink("SKILL.md", filepath.Join(root, "b", "link")))
	o, err := ScanParts(ScanOptions{Root: root}, func(*Tree) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var problems *ProblemsError
	if _, err := o.Write(&buf, WriteOptions{}, nil); !errors.As(err, &problems) || buf.Len() != 0 {
		t.Errorf("with a symlink: err = %v, %d bytes written; want a ProblemsError and nothing", err, buf.Len())
	}
	must(t, os.Remove(filepath.Join(root, "b", "link")))
	if o, err = ScanParts(ScanOptions{Root: root}, func(*Tree) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var size *SizeError
	if _, err := o.Write(&buf, WriteOptions{Limits: Limits{MaxSize: 10}}, nil); !errors.As(err, &size) || size.Size != 11 || buf.Len() != 0 {
		t.Errorf("over the size limit: err = %v, %d bytes written; want a SizeError of 11 bytes and nothing", err, buf.Len())
	}
	var count *CountError
	if _, err := o.Write(&buf, WriteOptions{Limits: Limits{MaxFiles: 3}}, nil); !errors.As(err, &count) || count.Count != 4 || buf.Len() != 0 {
		t.Errorf("over the file limit: err = %v, %d bytes written; want a CountError of 4 entries and nothing", err, buf.Len())
	}
}

// An outline keeps a fixed few bytes a part, whatever the part holds: the
// entries of a skill are dropped once it is scanned (and once written).
// Holding them cost memory in the number of files of a library.
func TestOutlineKeepsNoPerFileData(t *testing.T) {
	root := t.TempDir()
	const parts, filesPerPart = 100, 50
	var files []fileSpec
	for i := range parts {
		for j := range filesPerPart {
			files = append(files, fileSpec{path: fmt.Sprintf("skill-%03d/references/file-with-a-long-name-%02d.md", i, j), body: "x"})
		}
	}
	buildTree(t, root, files, defaultBuild)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	o, err := ScanParts(ScanOptions{Root: root}, func(*Tree) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perPart := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / parts
	// 50 entries take over 6 KiB; a fingerprint, 32 bytes.
	if perPart > 512 {
		t.Errorf("the outline keeps %d bytes a part of %d files, want under 512", perPart, filesPerPart)
	}
	runtime.KeepAlive(o)
}

// Parts laid out anywhere in a package root are the layer of a skills
// directory that holds them under their names, byte for byte; a part
// outside the package root is refused. The package root's .staxignore
// applies to them where they are.
func TestPartsAreTheLayerOfTheirSkillsDirectory(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	buildTree(t, repo, []fileSpec{
		{path: "skills/a/SKILL.md", body: "a"},
		{path: "skills/a/scripts/run.sh", body: "#!/bin/sh\n", exec: true},
		{path: "plugins/p/tools/b/SKILL.md", body: "b"},
		{path: "plugins/p/tools/b/notes.txt", body: "left out by the ignore file, matched at its path on disk"},
		{path: ".staxignore", body: "/plugins/p/tools/b/notes.txt\n"},
		{path: "one/SKILL.md", body: "c at the root"},
	}, defaultBuild)
	skillsDir := t.TempDir()
	buildTree(t, skillsDir, []fileSpec{
		{path: "a/SKILL.md", body: "a"},
		{path: "a/scripts/run.sh", body: "#!/bin/sh\n", exec: true},
		{path: "b/SKILL.md", body: "b"},
		{path: "c/SKILL.md", body: "c at the root"},
	}, defaultBuild)
	want, wantBytes, _ := writeOutline(t, ScanOptions{Root: skillsDir})
	got, gotBytes, _ := writeOutline(t, ScanOptions{Root: repo, PackageRoot: repo, Parts: map[string]string{
		"a": filepath.Join(repo, "skills", "a"),
		"b": filepath.Join(repo, "plugins", "p", "tools", "b"),
		"c": filepath.Join(repo, "one"),
	}})
	if got.Digest != want.Digest || !bytes.Equal(gotBytes, wantBytes) {
		t.Errorf("parts layer %s, skills directory layer %s", got.Digest, want.Digest)
	}

	outside := t.TempDir()
	_, err := ScanParts(ScanOptions{Root: repo, PackageRoot: repo, Parts: map[string]string{"x": outside}}, func(*Tree) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "not inside package root") {
		t.Errorf("a part outside the package root: %v", err)
	}
}

// A part's name is a skill directory name: one that breaks the name rule
// is refused, whatever the directory holds.
func TestPartNamesPassTheNameRule(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	buildTree(t, repo, []fileSpec{{path: "s/SKILL.md", body: "s"}}, defaultBuild)
	for _, name := range []string{"a/b", "..", "", "-x", ".git"} {
		o, err := ScanParts(ScanOptions{Root: repo, PackageRoot: repo, Parts: map[string]string{name: filepath.Join(repo, "s")}}, func(*Tree) error { return nil })
		if err == nil && len(o.Problems) == 0 {
			_, err = o.Write(io.Discard, WriteOptions{}, nil)
		}
		if err == nil && len(o.Problems) == 0 {
			t.Errorf("part %q was written", name)
		}
	}
}
