package layers

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestStaxignore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		ignore string
		files  []string
		want   []string
	}{
		{
			name:   "negation",
			ignore: "*.log\n!keep.log\n",
			files:  []string{"a.log", "keep.log", "sub/b.log", "sub/keep.log"},
			want:   []string{"keep.log", "sub/", "sub/keep.log"},
		},
		{
			name:   "anchored",
			ignore: "/build\n",
			files:  []string{"build/x", "sub/build/y", "builder"},
			want:   []string{"builder", "sub/", "sub/build/", "sub/build/y"},
		},
		{
			name:   "unanchored",
			ignore: "build\n",
			files:  []string{"build/x", "sub/build/y", "builder"},
			want:   []string{"builder", "sub/"},
		},
		{
			name:   "directory only",
			ignore: "logs/\n",
			files:  []string{"logs/a", "sub/logs/b", "other/logs"},
			want:   []string{"other/", "other/logs", "sub/"},
		},
		{
			// go-git matches the tmp directory itself too (git only its
			// contents); either way none of tmp's files are packaged.
			name:   "double star around",
			ignore: "**/tmp/**\n",
			files:  []string{"tmp/a", "x/tmp/b", "x/y/tmp/c", "x/tmpfile", "tmp.md"},
			want:   []string{"tmp.md", "x/", "x/tmpfile", "x/y/"},
		},
		{
			name:   "double star inside",
			ignore: "a/**/b\n",
			files:  []string{"a/b", "a/x/b", "a/x/y/b", "a/x/c", "c/a/x/b"},
			want:   []string{"a/", "a/x/", "a/x/c", "a/x/y/", "c/", "c/a/", "c/a/x/", "c/a/x/b"},
		},
		{
			name:   "comments and blank lines",
			ignore: "# *.md\n\n   \n\\#lit\n*.bak\r\n",
			files:  []string{"x.md", "#lit", "y.bak"},
			want:   []string{"x.md"},
		},
		{
			name:   "git and stax directories",
			ignore: "",
			files:  []string{".git/config", "s/.git/HEAD", ".stax/state", "s/deep/.stax/x", ".gitignore", "s/.staxrc"},
			want:   []string{".gitignore", "s/", "s/.staxrc", "s/deep/"},
		},
		{
			name:   "git and stax cannot be negated",
			ignore: "!.git\n!.git/**\n",
			files:  []string{".git/config", "a"},
			want:   []string{"a"},
		},
		{
			name:   "ignore file itself",
			ignore: "*.tmp\n",
			files:  []string{"a", "s/.staxignore", "s/x.tmp"},
			want:   []string{"a", "s/", "s/.staxignore"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			buildTree(t, root, specs(tc.files), defaultBuild)
			must(t, os.WriteFile(filepath.Join(root, IgnoreFile), []byte(tc.ignore), 0o644))
			tree := mustScan(t, ScanOptions{Root: root})
			if got := entryPaths(tree); !slices.Equal(got, tc.want) {
				t.Errorf("entries = %q, want %q", got, tc.want)
			}
		})
	}
}

func specs(paths []string) []fileSpec {
	out := make([]fileSpec, len(paths))
	for i, p := range paths {
		out[i] = fileSpec{path: p, body: "content of " + p}
	}
	return out
}

// The ignore file is read from the package root, and matched against paths
// relative to it, when the layer root is a subdirectory.
func TestStaxignoreFromPackageRoot(t *testing.T) {
	t.Parallel()
	pkg := t.TempDir()
	buildTree(t, pkg, specs([]string{"skills/a/public.md", "skills/a/secret.md", "skills/b/x.md", "skills/c.tmp", "README.md"}), defaultBuild)
	must(t, os.WriteFile(filepath.Join(pkg, IgnoreFile), []byte("skills/a/secret.md\n/skills/b/\n*.tmp\n"), 0o644))
	// Not the package root's: packaged like any file, its patterns unused.
	must(t, os.WriteFile(filepath.Join(pkg, "skills", IgnoreFile), []byte("*\n"), 0o644))

	tree := mustScan(t, ScanOptions{Root: filepath.Join(pkg, "skills"), PackageRoot: pkg})
	want := []string{".staxignore", "a/", "a/public.md"}
	if got := entryPaths(tree); !slices.Equal(got, want) {
		t.Errorf("entries = %q, want %q", got, want)
	}
}

func TestScanErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	buildTree(t, root, specs([]string{"f"}), defaultBuild)
	cases := map[string]ScanOptions{
		"missing root":            {Root: filepath.Join(root, "nope")},
		"root is a file":          {Root: filepath.Join(root, "f")},
		"root outside package":    {Root: root, PackageRoot: filepath.Join(root, "sub")},
		"unknown symlink mode":    {Root: root, Symlinks: "follow"},
		"package root is file":    {Root: root, PackageRoot: filepath.Join(root, "f")},
		"root is package sibling": {Root: root, PackageRoot: t.TempDir()},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			if opts.PackageRoot == filepath.Join(root, "sub") {
				must(t, os.MkdirAll(opts.PackageRoot, 0o755))
			}
			_, err := Scan(opts)
			if err == nil || !strings.HasPrefix(err.Error(), "scan ") {
				t.Errorf("err = %v, want a scan error", err)
			}
		})
	}
}

func TestScanEntries(t *testing.T) {
	t.Parallel()
	root := built(t, []fileSpec{
		{path: "s/run", body: "#!", exec: true},
		{path: "s/doc.md", body: "doc"},
		{path: "s/empty/"},
	}, defaultBuild)
	tree := mustScan(t, ScanOptions{Root: root})
	want := []Entry{
		{Path: "s", Dir: true, Source: filepath.Join(root, "s")},
		{Path: "s/doc.md", Size: 3, Source: filepath.Join(root, "s", "doc.md")},
		{Path: "s/empty", Dir: true, Source: filepath.Join(root, "s", "empty")},
		{Path: "s/run", Size: 2, Executable: true, Source: filepath.Join(root, "s", "run")},
	}
	if !slices.Equal(tree.Entries, want) {
		t.Errorf("entries = %+v\nwant %+v", tree.Entries, want)
	}
	if tree.Size() != 5 {
		t.Errorf("Size = %d, want 5", tree.Size())
	}
}

// problemKinds maps each problem path to its kind.
func problemKinds(tree *Tree) map[string]ProblemKind {
	out := map[string]ProblemKind{}
	for _, p := range tree.Problems {
		out[p.Path] = p.Kind
	}
	return out
}

func TestSymlinkRejectedByDefault(t *testing.T) {
	t.Parallel()
	root := built(t, specs([]string{"s/target.md"}), defaultBuild)
	must(t, os.Symlink("target.md", filepath.Join(root, "s", "link.md")))
	tree := mustScan(t, ScanOptions{Root: root})
	want := []Problem{{Path: "s/link.md", Kind: ProblemSymlink}}
	if len(tree.Problems) != 1 || tree.Problems[0].Path != want[0].Path || tree.Problems[0].Kind != want[0].Kind {
		t.Fatalf("problems = %+v, want %+v", tree.Problems, want)
	}
	var buf bytes.Buffer
	_, err := Write(&buf, tree, WriteOptions{})
	var pe *ProblemsError
	if !errors.As(err, &pe) || buf.Len() != 0 {
		t.Errorf("Write: err = %v with %d bytes, want *ProblemsError and nothing written", err, buf.Len())
	}
}

func TestSymlinkFlatten(t *testing.T) {
	t.Parallel()
	pkg := t.TempDir()
	buildTree(t, pkg, []fileSpec{
		{path: "skills/s/SKILL.md", body: "skill"},
		{path: "shared/tool.sh", body: "#!/bin/sh\n", exec: true},
		{path: "shared/lib/a.txt", body: "a"},
		{path: "shared/lib/sub/b.txt", body: "b"},
	}, defaultBuild)
	s := filepath.Join(pkg, "skills", "s")
	must(t, os.Symlink("../../shared/tool.sh", filepath.Join(s, "tool.sh")))
	must(t, os.Symlink(filepath.Join(pkg, "shared", "lib"), filepath.Join(s, "lib")))
	must(t, os.Symlink("SKILL.md", filepath.Join(s, "README.md")))

	tree := mustScan(t, ScanOptions{Root: filepath.Join(pkg, "skills"), PackageRoot: pkg, Symlinks: SymlinkFlatten})
	if len(tree.Problems) > 0 {
		t.Fatalf("problems: %+v", tree.Problems)
	}
	want := []string{"s/", "s/README.md", "s/SKILL.md", "s/lib/", "s/lib/a.txt", "s/lib/sub/", "s/lib/sub/b.txt", "s/tool.sh"}
	if got := entryPaths(tree); !slices.Equal(got, want) {
		t.Fatalf("entries = %q, want %q", got, want)
	}
	realPkg, err := filepath.EvalSymlinks(pkg)
	must(t, err)
	for _, e := range tree.Entries {
		if e.Path == "s/tool.sh" && (!e.Executable || e.Source != filepath.Join(realPkg, "shared", "tool.sh")) {
			t.Errorf("tool.sh entry = %+v, want executable with the target as source", e)
		}
	}

	var buf bytes.Buffer
	_, err = Write(&buf, tree, WriteOptions{})
	must(t, err)
	got := map[string]string{}
	must(t, Walk(&buf, ReadOptions{}, func(h Header, r io.Reader) error {
		b, err := io.ReadAll(r)
		got[h.Path] = string(b)
		return err
	}))
	for path, body := range map[string]string{"s/README.md": "skill", "s/tool.sh": "#!/bin/sh\n", "s/lib/sub/b.txt": "b"} {
		if got[path] != body {
			t.Errorf("%s = %q, want the target's bytes %q", path, got[path], body)
		}
	}
}

func TestSymlinkFlattenProblems(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644))
	cases := []struct {
		name string
		link func(t *testing.T, root string) // creates the links under root/s
		want map[string]ProblemKind
	}{
		{"dangling", func(t *testing.T, root string) {
			must(t, os.Symlink("missing.md", filepath.Join(root, "s", "l")))
		}, map[string]ProblemKind{"s/l": ProblemDanglingSymlink}},
		{"escape absolute", func(t *testing.T, root string) {
			must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "s", "l")))
		}, map[string]ProblemKind{"s/l": ProblemSymlinkEscape}},
		{"escape relative directory", func(t *testing.T, root string) {
			must(t, os.Symlink("../..", filepath.Join(root, "s", "l")))
		}, map[string]ProblemKind{"s/l": ProblemSymlinkEscape}},
		{"directory link to ancestor", func(t *testing.T, root string) {
			must(t, os.Symlink("..", filepath.Join(root, "s", "up")))
		}, map[string]ProblemKind{"s/up": ProblemSymlinkCycle}},
		{"directory link to itself", func(t *testing.T, root string) {
			must(t, os.Symlink(".", filepath.Join(root, "s", "self")))
		}, map[string]ProblemKind{"s/self": ProblemSymlinkCycle}},
		{"link loop", func(t *testing.T, root string) {
			must(t, os.Symlink("b", filepath.Join(root, "s", "a")))
			must(t, os.Symlink("a", filepath.Join(root, "s", "b")))
		}, map[string]ProblemKind{"s/a": ProblemSymlinkCycle, "s/b": ProblemSymlinkCycle}},
		{"mutual directory links", func(t *testing.T, root string) {
			// s/x/to-y -> s/y and s/y/to-x -> s/x: neither target is an
			// ancestor of its own link, but walking them never ends.
			must(t, os.MkdirAll(filepath.Join(root, "s", "x"), 0o755))
			must(t, os.MkdirAll(filepath.Join(root, "s", "y"), 0o755))
			must(t, os.Symlink("../y", filepath.Join(root, "s", "x", "to-y")))
			must(t, os.Symlink("../x", filepath.Join(root, "s", "y", "to-x")))
		}, map[string]ProblemKind{"s/x/to-y/to-x": ProblemSymlinkCycle, "s/y/to-x/to-y": ProblemSymlinkCycle}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := built(t, specs([]string{"s/SKILL.md"}), defaultBuild)
			tc.link(t, root)
			tree := mustScan(t, ScanOptions{Root: root, Symlinks: SymlinkFlatten})
			if got := problemKinds(tree); !mapsEqual(got, tc.want) {
				t.Errorf("problems = %+v, want %v", tree.Problems, tc.want)
			}
		})
	}
}

func mapsEqual[K, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// An ignored symlink or special file is no problem: it is not packaged.
func TestIgnoredProblemsVanish(t *testing.T) {
	t.Parallel()
	root := built(t, specs([]string{"s/SKILL.md"}), defaultBuild)
	must(t, os.Symlink("SKILL.md", filepath.Join(root, "s", "link")))
	must(t, os.WriteFile(filepath.Join(root, IgnoreFile), []byte("link\n"), 0o644))
	tree := mustScan(t, ScanOptions{Root: root})
	if len(tree.Problems) != 0 {
		t.Errorf("problems = %+v, want none", tree.Problems)
	}
}

func TestProblemsSorted(t *testing.T) {
	t.Parallel()
	root := built(t, specs([]string{"b/SKILL.md", "a/SKILL.md"}), defaultBuild)
	for _, p := range []string{"b/z", "b/a", "a/m"} {
		must(t, os.Symlink("SKILL.md", filepath.Join(root, filepath.FromSlash(p))))
	}
	tree := mustScan(t, ScanOptions{Root: root})
	var got []string
	for _, p := range tree.Problems {
		got = append(got, p.Path)
	}
	if want := []string{"a/m", "b/a", "b/z"}; !slices.Equal(got, want) {
		t.Errorf("problem order = %q, want %q", got, want)
	}
}

func TestUnsafeNamesAreProblems(t *testing.T) {
	t.Parallel()
	root := built(t, specs([]string{"s/back\\slash", "s/new\nline", "s/fine.md"}), defaultBuild)
	tree := mustScan(t, ScanOptions{Root: root})
	want := map[string]ProblemKind{"s/back\\slash": ProblemUnsafeName, "s/new\nline": ProblemUnsafeName}
	if got := problemKinds(tree); !mapsEqual(got, want) {
		t.Errorf("problems = %+v, want %v", tree.Problems, want)
	}
}

// A path past the limits of the name rule is a problem of the scan, at
// the first path past them, so that pack names it and Write refuses the
// tree before writing anything.
func TestPathsPastTheLimitsAreProblems(t *testing.T) {
	t.Parallel()
	deep := "s/" + strings.Repeat("d/", maxPathSegments-1) + "f"
	long := "t/" + strings.Repeat(strings.Repeat("x", 200)+"/", 6) + "f"
	root := built(t, specs([]string{"s/SKILL.md", deep, "t/SKILL.md", long}), defaultBuild)
	tree := mustScan(t, ScanOptions{Root: root})
	tooLong := "t/" + strings.Repeat(strings.Repeat("x", 200)+"/", 5) + strings.Repeat("x", 200)
	want := map[string]ProblemKind{deep: ProblemUnsafeName, tooLong: ProblemUnsafeName}
	if got := problemKinds(tree); !mapsEqual(got, want) {
		t.Errorf("problems = %+v, want %v", tree.Problems, want)
	}
	var buf bytes.Buffer
	var problems *ProblemsError
	if _, err := Write(&buf, tree, WriteOptions{}); !errors.As(err, &problems) || !strings.Contains(err.Error(), deep) || buf.Len() != 0 {
		t.Errorf("Write: %v, %d bytes written", err, buf.Len())
	}
}
