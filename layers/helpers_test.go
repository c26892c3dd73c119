package layers

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fileSpec is one file of a generated tree. A path ending in "/" is an
// (empty) directory.
type fileSpec struct {
	path string
	body string
	exec bool
}

// buildOpts varies how a tree is put on disk without changing what a layer
// should contain.
type buildOpts struct {
	filePerm, execPerm, dirPerm fs.FileMode
	reverse                     bool
	mtime                       time.Time
}

var defaultBuild = buildOpts{filePerm: 0o644, execPerm: 0o755, dirPerm: 0o755}

// buildTree creates files under root, creating parents as needed, and then
// applies permissions and mtimes explicitly so the umask plays no part.
func buildTree(t testing.TB, root string, files []fileSpec, o buildOpts) {
	t.Helper()
	order := slices.Clone(files)
	if o.reverse {
		slices.Reverse(order)
	}
	var dirs []string
	for _, f := range order {
		p := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(f.path, "/")))
		dir := filepath.Dir(p)
		if strings.HasSuffix(f.path, "/") {
			dir = p
		}
		must(t, os.MkdirAll(dir, 0o755))
		for d := dir; d != root && strings.HasPrefix(d, root); d = filepath.Dir(d) {
			dirs = append(dirs, d)
		}
		if strings.HasSuffix(f.path, "/") {
			continue
		}
		must(t, os.WriteFile(p, []byte(f.body), 0o600))
		perm := o.filePerm
		if f.exec {
			perm = o.execPerm
		}
		must(t, os.Chmod(p, perm))
		if !o.mtime.IsZero() {
			must(t, os.Chtimes(p, o.mtime, o.mtime))
		}
	}
	for _, d := range dirs {
		must(t, os.Chmod(d, o.dirPerm))
		if !o.mtime.IsZero() {
			must(t, os.Chtimes(d, o.mtime, o.mtime))
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustScan(t testing.TB, opts ScanOptions) *Tree {
	t.Helper()
	tree, err := Scan(opts)
	if err != nil {
		t.Fatalf("Scan(%+v): %v", opts, err)
	}
	return tree
}

// writeLayer scans root and writes it, failing the test on any problem.
func writeLayer(t testing.TB, root string) (WriteResult, []byte) {
	t.Helper()
	tree := mustScan(t, ScanOptions{Root: root})
	if len(tree.Problems) > 0 {
		t.Fatalf("unexpected problems: %+v", tree.Problems)
	}
	var buf bytes.Buffer
	res, err := Write(&buf, tree, WriteOptions{})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return res, buf.Bytes()
}

// entryPaths lists a tree's entries as tar names: directories end in "/".
func entryPaths(tree *Tree) []string {
	var out []string
	for _, e := range tree.Entries {
		out = append(out, layerKey(e))
	}
	return out
}

func gunzip(t testing.TB, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	must(t, err)
	out, err := io.ReadAll(zr)
	must(t, err)
	return out
}

// rawEntry is an archive entry written with archive/tar exactly as given,
// however hostile. With cut, the archive ends right after this header.
type rawEntry struct {
	hdr  tar.Header
	body string
	cut  bool
}

func file(name, body string) rawEntry {
	return rawEntry{hdr: tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}, body: body}
}

func dir(name string) rawEntry {
	return rawEntry{hdr: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755}}
}

func special(name string, flag byte, link string) rawEntry {
	return rawEntry{hdr: tar.Header{Name: name, Typeflag: flag, Linkname: link, Mode: 0o644}}
}

// rawArchive gzips a tar stream of entries, with the standard library so
// that the reader is tested against another writer than ours.
func rawArchive(t testing.TB, entries ...rawEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	closed := false
	for _, e := range entries {
		hdr := e.hdr
		must(t, tw.WriteHeader(&hdr))
		if e.cut {
			closed = true
			break
		}
		if e.body != "" {
			_, err := io.WriteString(tw, e.body)
			must(t, err)
		}
	}
	if !closed {
		must(t, tw.Close())
	}
	must(t, zw.Close())
	return buf.Bytes()
}

// gzipBytes compresses raw bytes as one gzip member.
func gzipBytes(t testing.TB, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(raw)
	must(t, err)
	must(t, zw.Close())
	return buf.Bytes()
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
