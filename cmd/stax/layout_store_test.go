package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/registrytest"
)

// A local store whose index.json a killed writer left empty repairs
// itself on the next run, saying so: pull, inspect and install work.
func TestLocalStoreRepairsATornIndex(t *testing.T) {
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

	r := runStax(t, "inspect", ref)
	if r.Code != 0 || !strings.Contains(r.Stderr, "warning: index.json of the local store "+filepath.Join(home, "store")+" could not be read") ||
		!strings.Contains(r.Stderr, "rebuilt it from the") {
		t.Fatalf("inspect after the index was torn: exit %d: %s", r.Code, r.Stderr)
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
