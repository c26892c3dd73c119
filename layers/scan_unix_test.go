//go:build unix

package layers

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

func TestSpecialFileProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		make func(t *testing.T, dir string) // creates dir/x (and maybe dir/y)
		want map[string]ProblemKind
	}{
		{"hard link", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "x"), []byte("shared"), 0o644))
			must(t, os.Link(filepath.Join(dir, "x"), filepath.Join(dir, "y")))
		}, map[string]ProblemKind{"s/x": ProblemHardlink, "s/y": ProblemHardlink}},
		{"fifo", func(t *testing.T, dir string) {
			must(t, syscall.Mkfifo(filepath.Join(dir, "x"), 0o644))
		}, map[string]ProblemKind{"s/x": ProblemFIFO}},
		{"socket", func(t *testing.T, dir string) {
			l, err := net.Listen("unix", filepath.Join(dir, "x"))
			if err != nil {
				t.Skipf("cannot listen on a unix socket here: %v", err)
			}
			t.Cleanup(func() { l.Close() })
		}, map[string]ProblemKind{"s/x": ProblemSocket}},
		{"device", func(t *testing.T, dir string) {
			// 1:3 is /dev/null; creating it needs root and a permissive
			// container, so lacking either skips rather than fails.
			if err := syscall.Mknod(filepath.Join(dir, "x"), syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
				t.Skipf("cannot create a device node: %v", err)
			}
		}, map[string]ProblemKind{"s/x": ProblemDevice}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A short root: unix socket paths are limited to ~100 bytes.
			root, err := os.MkdirTemp("", "lt")
			must(t, err)
			t.Cleanup(func() { os.RemoveAll(root) })
			buildTree(t, root, specs([]string{"s/SKILL.md"}), defaultBuild)
			tc.make(t, filepath.Join(root, "s"))
			tree := mustScan(t, ScanOptions{Root: root})
			if got := problemKinds(tree); !mapsEqual(got, tc.want) {
				t.Errorf("problems = %+v, want %v", tree.Problems, tc.want)
			}
		})
	}
}

// A flattened symlink to a hard-linked file or a FIFO inherits the target's
// problem: flattening must not smuggle in what the tree itself may not hold.
func TestFlattenChecksTargets(t *testing.T) {
	t.Parallel()
	root := built(t, specs([]string{"s/SKILL.md", "data/x"}), defaultBuild)
	must(t, os.Link(filepath.Join(root, "data", "x"), filepath.Join(root, "data", "x2")))
	must(t, syscall.Mkfifo(filepath.Join(root, "data", "pipe"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, IgnoreFile), []byte("/data/\n"), 0o644))
	must(t, os.Symlink("../data/x", filepath.Join(root, "s", "hard")))
	must(t, os.Symlink("../data/pipe", filepath.Join(root, "s", "pipe")))
	tree := mustScan(t, ScanOptions{Root: root, Symlinks: SymlinkFlatten})
	want := map[string]ProblemKind{"s/hard": ProblemHardlink, "s/pipe": ProblemFIFO}
	if got := problemKinds(tree); !mapsEqual(got, want) {
		t.Errorf("problems = %+v, want %v", tree.Problems, want)
	}
}

// Extract sets modes explicitly, so a restrictive umask changes nothing.
func TestExtractIgnoresUmask(t *testing.T) {
	_, data := writeLayer(t, goldenFixture)
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dest := filepath.Join(t.TempDir(), "out")
	_, err := Extract(bytesReader(data), dest, ReadOptions{})
	must(t, err)
	checkExtractedModes(t, dest)
}

// A named pipe for the ignore file blocked Scan in its open for ever; it
// is refused, naming the file.
func TestScanRefusesAnIgnoreFileThatIsAPipe(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	buildTree(t, root, specs([]string{"s/SKILL.md"}), defaultBuild)
	ignore := filepath.Join(root, IgnoreFile)
	filetest.Mkfifo(t, ignore)
	var err error
	filetest.Finishes(t, "Scan with a named pipe for "+IgnoreFile, func() { _, err = Scan(ScanOptions{Root: root}) })
	if err == nil || !strings.Contains(err.Error(), ignore+" is not a regular file") {
		t.Errorf("Scan = %v, want a refusal naming %s", err, ignore)
	}
}
