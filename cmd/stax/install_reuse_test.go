package main

import (
	"bytes"
	"github.com/stax-dev/stax/pkg/workflow"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// removeLayers deletes the gzip blobs (the skills layers) of the OCI
// layouts under roots, so that any attempt to read a layer fails.
func removeLayers(t *testing.T, roots ...string) int {
	t.Helper()
	n := 0
	for _, root := range roots {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.Contains(p, "blobs") {
				return nil
			}
			data, _ := os.ReadFile(p)
			if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				n++
			}
			return nil
		})
	}
	return n
}

// An unchanged re-install reads no layer: the folder holds every skill as
// recorded, so nothing is fetched, extracted or written.
func TestUnchangedReinstallReadsNoLayer(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: reuse\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(pkg, "skills"), map[string]string{
		"a/SKILL.md":        skillMD("a", "Run ${STAX_SKILL_DIR}/scripts/go.sh."),
		"a/scripts/go.sh":   "#!/bin/sh\necho a\n",
		"b/SKILL.md":        skillMD("b", "Plain."),
		"b/references/r.md": "ref\n",
	})
	layout := filepath.Join(root, "layout")
	if r := runStax(t, "pack", pkg, "-t", "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	project := filepath.Join(root, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "oci:" + layout + ":1.0.0"
	if r := runStax(t, "install", src, "--dir", project); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	installed := filepath.Join(project, ".claude", "skills")
	before := treeState(t, installed)
	if n := removeLayers(t, layout, home); n == 0 {
		t.Fatal("found no layer to remove")
	}

	r := runStax(t, "install", src, "--dir", project, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("re-install read a layer: exit %d: %s", r.Code, r.Stderr)
	}
	var out workflow.InstallResult
	decodeJSON(t, r.Stdout, &out)
	if got := out.Targets[0].Unchanged; !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("unchanged: %v, want [a b]", got)
	}
	if after := treeState(t, installed); !mapsEqual(before, after) {
		t.Error("an unchanged re-install changed the folder")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
