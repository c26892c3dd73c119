package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// A command that reads a package from oci:DIR never writes into DIR: a
// directory that is not a layout (a stax.yaml could name /etc) is refused
// as a missing one is, and left as it was, empty or not.
func TestReadingANonLayoutDirectoryWritesNothing(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, pub := newKeyPair(t, "k")
	commands := map[string]func(t *testing.T, ref string) []string{
		"inspect": func(t *testing.T, ref string) []string { return []string{"inspect", ref} },
		"resolve": func(t *testing.T, ref string) []string { return []string{"resolve", ref} },
		"diff":    func(t *testing.T, ref string) []string { return []string{"diff", ref, ref} },
		"verify":  func(t *testing.T, ref string) []string { return []string{"verify", ref, "--key", pub} },
		"render":  func(t *testing.T, ref string) []string { return []string{"render", ref + "#greet"} },
		"pull": func(t *testing.T, ref string) []string {
			return []string{"pull", ref, "-o", filepath.Join(t.TempDir(), "out")}
		},
		"install": func(t *testing.T, ref string) []string { return []string{"install", ref, "--dir", t.TempDir()} },
		"install from stax.yaml": func(t *testing.T, ref string) []string {
			project := t.TempDir()
			filetest.WriteFile(t, filepath.Join(project, "stax.yaml"), "name: project\nversion: 0.1.0\ninstall:\n  sources: ['"+ref+"']\n")
			return []string{"install", "--dir", project}
		},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			missing := runStax(t, args(t, "oci:"+filepath.Join(t.TempDir(), "missing")+":1")...)
			if missing.Code != 2 || !strings.Contains(missing.Stderr, "no OCI layout at") {
				t.Fatalf("a missing layout: exit %d, want 2 (the file system's) and where it looked: %s", missing.Code, missing.Stderr)
			}
			notLayout := t.TempDir()
			filetest.WriteFile(t, filepath.Join(notLayout, "passwd"), "root:x:0:0:root:/root:/bin/sh\n")
			empty := t.TempDir()
			for _, dir := range []string{notLayout, empty} {
				before := listTree(t, dir)
				r := runStax(t, args(t, "oci:"+dir+":1")...)
				if r.Code != missing.Code || !strings.Contains(r.Stderr, dir+" is not an OCI image layout (no oci-layout file)") {
					t.Errorf("%s: exit %d (a missing layout: %d): %s", dir, r.Code, missing.Code, r.Stderr)
				}
				if after := listTree(t, dir); after != before {
					t.Errorf("%s was written to:\n%s\nwas:\n%s", dir, after, before)
				}
			}
		})
	}
}

// A command that writes into oci:DIR creates a layout only in a new or
// empty directory: it never turns a directory of other files into one.
func TestWritingALayoutRefusesANonEmptyDirectory(t *testing.T) {
	t.Parallel()
	useHome(t)
	layout := filepath.Join(t.TempDir(), "layout")
	if r := runStax(t, "pack", examples, "-t", "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatalf("pack into a new directory: exit %d: %s", r.Code, r.Stderr)
	}
	notLayout := t.TempDir()
	filetest.WriteFile(t, filepath.Join(notLayout, "passwd"), "root:x:0:0:root:/root:/bin/sh\n")
	before := listTree(t, notLayout)
	for _, args := range [][]string{
		{"pack", examples, "-t", "oci:" + notLayout + ":1.0.0"},
		{"copy", "oci:" + layout + ":1.0.0", "oci:" + notLayout + ":1.0.0"},
		{"push", "oci:" + layout + ":1.0.0", "oci:" + notLayout + ":1.0.0"},
	} {
		r := runStax(t, args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, notLayout+" is not an OCI image layout (no oci-layout file) and is not empty") {
			t.Errorf("%s: exit %d: %s", args[0], r.Code, r.Stderr)
		}
		if after := listTree(t, notLayout); after != before {
			t.Errorf("%s wrote into %s:\n%s", args[0], notLayout, after)
		}
	}
	empty := t.TempDir()
	if r := runStax(t, "copy", "oci:"+layout+":1.0.0", "oci:"+empty+":1.0.0"); r.Code != 0 {
		t.Fatalf("copy into an empty directory: exit %d: %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", "oci:"+empty+":1.0.0"); strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("resolve the copy: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// A copy into a layout that fails — a blob that does not match its
// digest, a package over --max-size — leaves no layout it created and
// nothing in the ingest directory of one that was there.
func TestFailedCopyIntoALayoutLeavesNothing(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	src := reg.Host + "/acme/skills:1.0.0"

	// A layout that was there keeps its index; its ingest is left empty.
	existing := filepath.Join(t.TempDir(), "existing")
	other := t.TempDir()
	filetest.WriteFile(t, filepath.Join(other, "stax.yaml"), "name: other\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(other, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "Other.")})
	if r := runStax(t, "pack", other, "-t", "oci:"+existing+":0.1.0"); r.Code != 0 {
		t.Fatalf("pack: exit %d: %s", r.Code, r.Stderr)
	}
	index, err := os.ReadFile(filepath.Join(existing, ocispec.ImageIndexFile))
	if err != nil {
		t.Fatal(err)
	}

	fault := registrytest.CorruptBlob("acme/skills", pushed.Layers[0].Digest).Times(-1)
	reg.AddFaults(fault)
	defer fault.Times(0)
	newParent := filepath.Join(t.TempDir(), "new")
	empty := t.TempDir()
	for _, tt := range []struct {
		name, dir string
		extra     []string
		code      int
	}{
		{"corrupt blob into a new directory", filepath.Join(newParent, "layout"), nil, 6},
		{"corrupt blob into an empty directory", empty, nil, 6},
		{"corrupt blob into a layout", existing, nil, 6},
		{"over --max-size into a new directory", filepath.Join(newParent, "layout"), []string{"--max-size", "1KiB"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for try := range 2 {
				r := runStax(t, append([]string{"copy", src, "oci:" + tt.dir}, tt.extra...)...)
				if r.Code != tt.code {
					t.Fatalf("try %d: exit %d, want %d: %s", try, r.Code, tt.code, r.Stderr)
				}
			}
			switch tt.dir {
			case existing:
				if got, _ := os.ReadFile(filepath.Join(existing, ocispec.ImageIndexFile)); string(got) != string(index) {
					t.Errorf("index.json changed:\n%s\nwas:\n%s", got, index)
				}
				if left := listTree(t, filepath.Join(existing, "ingest")); left != "" {
					t.Errorf("left in ingest:\n%s", left)
				}
			case empty:
				if left := listTree(t, empty); left != "" {
					t.Errorf("left in the empty directory:\n%s", left)
				}
			default:
				if _, err := os.Stat(newParent); !os.IsNotExist(err) {
					t.Errorf("the directories the copy created are still there: %v\n%s", err, listTree(t, newParent))
				}
			}
		})
	}
}

// A local store whose index.json a killed writer left empty repairs
// itself on the next run, saying so: pull, inspect and install work.
func TestLocalStoreRepairsATornIndex(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	home := useHome(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	pushExamples(t, ref)
	if r := runStax(t, "pull", ref); r.Code != 0 {
		t.Fatalf("pull: exit %d: %s", r.Code, r.Stderr)
	}
	indexPath := filepath.Join(home, "store", ocispec.ImageIndexFile)
	if err := os.WriteFile(indexPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	r := runStax(t, "pull", ref)
	if r.Code != 0 || !strings.Contains(r.Stderr, "warning: index.json of the local store "+filepath.Join(home, "store")+" could not be read") ||
		!strings.Contains(r.Stderr, "rebuilt it from the") {
		t.Fatalf("pull after the index was torn: exit %d: %s", r.Code, r.Stderr)
	}
	var index ocispec.Index
	data, _ := os.ReadFile(indexPath)
	if err := json.Unmarshal(data, &index); err != nil || len(index.Manifests) == 0 {
		t.Fatalf("index.json after the repair: %v, %d manifests:\n%s", err, len(index.Manifests), data)
	}
	for _, args := range [][]string{
		{"pull", ref},
		{"inspect", ref},
		{"install", ref, "--dir", t.TempDir()},
	} {
		if r := runStax(t, args...); r.Code != 0 || strings.Contains(r.Stderr, "warning: index.json") {
			t.Errorf("%s after the repair: exit %d: %s", args[0], r.Code, r.Stderr)
		}
	}
}

// A pack into a new layout that fails after the layout was opened, here
// on registry flags it cannot use, leaves no layout behind.
func TestFailedPackIntoALayoutLeavesNothing(t *testing.T) {
	t.Parallel()
	useHome(t)
	parent := filepath.Join(t.TempDir(), "new")
	r := runStax(t, "pack", "../../examples", "-t", "oci:"+filepath.Join(parent, "layout")+":1.0.0", "--ca-file", filepath.Join(t.TempDir(), "missing.pem"))
	if r.Code == 0 {
		t.Fatalf("pack with a missing --ca-file succeeded: %s", r.Stderr)
	}
	if _, err := os.Stat(parent); !os.IsNotExist(err) {
		t.Errorf("the directories the pack created are still there: %v\n%s", err, listTree(t, parent))
	}
}
