package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repoFile reads a file of the repository by its path from the root.
func repoFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDocsCLIMatchesHelp checks the committed command reference, docs/cli,
// against what `stax docs markdown` generates from the commands now: the
// same pages, byte for byte, so no command, flag or help text can change
// without the reference changing with it. `make docs` regenerates it.
func TestDocsCLIMatchesHelp(t *testing.T) {
	t.Parallel()
	committed := filepath.Join("..", "..", "docs", "cli")
	generated := filepath.Join(t.TempDir(), "cli")
	if r := runStax(t, "docs", "markdown", generated); r.Code != 0 {
		t.Fatalf("docs markdown: exit %d: %s", r.Code, r.Stderr)
	}
	want, got := readPages(t, generated), readPages(t, committed)
	var stale []string
	for name, page := range want {
		old, ok := got[name]
		switch {
		case !ok:
			stale = append(stale, name+" is missing")
		case !bytes.Equal(old, page):
			stale = append(stale, name+" differs: "+firstDifference(old, page))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+" documents no command")
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Errorf("docs/cli does not match `stax --help`; run `make docs` and commit docs/cli:\n  %s", strings.Join(stale, "\n  "))
	}
}

// readPages reads every file of dir by name; a missing dir reads as none.
func readPages(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	pages := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = data
	}
	return pages
}

// firstDifference quotes the first line where the committed page (old)
// and the generated one differ.
func firstDifference(old, page []byte) string {
	a, b := strings.Split(string(old), "\n"), strings.Split(string(page), "\n")
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + " is " + strconv.Quote(x) + ", stax --help gives " + strconv.Quote(y)
		}
	}
	return "the pages differ"
}

func TestDocsMarkdownAndMan(t *testing.T) {
	t.Parallel()
	useHome(t)
	setenv(t, "SOURCE_DATE_EPOCH", "1700000000")
	base := t.TempDir()
	for _, format := range []string{"markdown", "man"} {
		dir := filepath.Join(base, format)
		r := runStax(t, "docs", format, dir)
		if r.Code != 0 {
			t.Fatalf("docs %s: exit %d: %s", format, r.Code, r.Stderr)
		}
		name := map[string]string{"markdown": "stax_push.md", "man": "stax-push.1"}[format]
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("docs %s wrote no page for push: %v", format, err)
		}
		if !strings.Contains(string(data), "--plain-http") {
			t.Errorf("%s does not document --plain-http:\n%s", name, data)
		}
		if strings.Contains(string(data), "Auto generated") {
			t.Errorf("%s carries a generation date, so it is not reproducible", name)
		}
		// A second run into the same directory refuses, leaving it as it was.
		r = runStax(t, "docs", format, dir)
		if r.Code != 2 || !strings.Contains(r.Stderr, "not empty") {
			t.Errorf("docs into a non-empty dir: exit %d, %s", r.Code, r.Stderr)
		}
		if again, _ := os.ReadFile(filepath.Join(dir, name)); string(again) != string(data) {
			t.Errorf("a refused run changed %s", name)
		}
	}
	if entries, _ := os.ReadDir(base); len(entries) != 2 {
		t.Errorf("staging left behind: %v", entries)
	}
	if r := runStax(t, "docs", "html", filepath.Join(base, "x")); r.Code != 1 {
		t.Errorf("docs html: exit %d", r.Code)
	}
}
