package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
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
		// A second run into the same directory, as stax docs --help shows
		// it for docs/cli, replaces the pages, those of commands that are
		// gone too.
		gone := map[string]string{"markdown": "stax_gone.md", "man": "stax-gone.1"}[format]
		start := map[string]string{"markdown": "## stax gone\n", "man": ".nh\n.TH \"STAX\" \"1\"\n"}[format]
		filetest.WriteFile(t, filepath.Join(dir, gone), start)
		r = runStax(t, "docs", format, dir)
		if r.Code != 0 {
			t.Errorf("docs into a directory of its pages: exit %d, %s", r.Code, r.Stderr)
		}
		if again, _ := os.ReadFile(filepath.Join(dir, name)); string(again) != string(data) {
			t.Errorf("a second run wrote another %s", name)
		}
		if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("the page of a command that is gone is still there (%v)", err)
		}
		// A file that is not one of its pages, even named like one, makes
		// it refuse, leaving the directory as it was.
		for file, body := range map[string]string{"notes.txt": "mine\n", gone: "# my own notes\n"} {
			filetest.WriteFile(t, filepath.Join(dir, file), body)
			r = runStax(t, "docs", format, dir)
			if r.Code != 2 || !strings.Contains(r.Stderr, "not empty") || !strings.Contains(r.Stderr, file) {
				t.Errorf("docs into a directory with %s: exit %d, %s", file, r.Code, r.Stderr)
			}
			if again, _ := os.ReadFile(filepath.Join(dir, file)); string(again) != body {
				t.Errorf("a refused run changed %s", file)
			}
			os.Remove(filepath.Join(dir, file))
		}
	}
	if entries, _ := os.ReadDir(base); len(entries) != 2 {
		t.Errorf("staging left behind: %v", entries)
	}
	if r := runStax(t, "docs", "html", filepath.Join(base, "x")); r.Code != 1 {
		t.Errorf("docs html: exit %d", r.Code)
	}
}

// The command stax docs --help shows for the repository's reference works
// on the repository's docs/cli as it is: it regenerates the pages there.
func TestDocsHelpExampleRegeneratesDocsCLI(t *testing.T) {
	t.Parallel()
	useHome(t)
	help := runStax(t, "docs", "--help").Stdout
	var example []string
	for _, line := range strings.Split(help, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "stax" && f[1] == "docs" && f[3] == "./docs/cli" {
			example = f[1:]
		}
	}
	if example == nil {
		t.Fatalf("stax docs --help shows no stax docs FORMAT ./docs/cli:\n%s", help)
	}
	repo := t.TempDir()
	if err := os.CopyFS(filepath.Join(repo, "docs", "cli"), os.DirFS(filepath.Join("..", "..", "docs", "cli"))); err != nil {
		t.Fatal(err)
	}
	example[2] = filepath.Join(repo, "docs", "cli")
	if r := runStax(t, example...); r.Code != 0 {
		t.Fatalf("stax %s in a copy of the repository: exit %d: %s", strings.Join(example, " "), r.Code, r.Stderr)
	}
}
