package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// A layer whose bytes do not match its digest fails pull -o (exit 6)
// whether the damage is in its first byte, which stops the extraction at
// once, or in its last, which is only noticed once every file has been
// extracted: nothing appears at DIR or beside it, the store has neither
// the blob nor the tag, and its ingest is empty.
func TestPullOfACorruptLayerLeavesNothing(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	layer := pushed.Layers[0]
	for name, at := range map[string]int64{"first byte": 0, "last byte": layer.Size - 1} {
		t.Run(name, func(t *testing.T) {
			home := useHome(t)
			fault := registrytest.CorruptBlob("acme/skills", layer.Digest).AtByte(at)
			reg.AddFaults(fault)
			parent := t.TempDir()
			out := filepath.Join(parent, "skills")
			r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "-o", out)
			if fault.Hits() != 1 {
				t.Fatalf("the fault fired %d times", fault.Hits())
			}
			if r.Code != 6 || !strings.Contains(r.Stderr, "does not match its digest") || !strings.Contains(r.Stderr, layer.Digest.String()) {
				t.Errorf("exit %d %s", r.Code, r.Stderr)
			}
			if entries, _ := os.ReadDir(parent); len(entries) > 0 {
				t.Errorf("a failed pull left %s in the output's folder", entries[0].Name())
			}
			if _, err := os.Stat(filepath.Join(home, "store", "blobs", "sha256", layer.Digest.Encoded())); !os.IsNotExist(err) {
				t.Errorf("a corrupt layer is in the store: %v", err)
			}
			if r := runStax(t, "resolve", reg.Host+"/acme/skills:1.0.0", "--offline", "--output", "json"); strings.Contains(r.Stdout, `"source": "local"`) {
				t.Error("a failed pull tagged the package in the local store")
			}
			assertEmptyIngest(t, home)
		})
	}
}

// assertEmptyIngest checks that the local store of home has nothing in
// its ingest directory: no partial blob outlives a command.
func assertEmptyIngest(t *testing.T, home string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(home, "store", "ingest"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the store's ingest: %s", e.Name())
	}
}
