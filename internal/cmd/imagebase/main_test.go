package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/match"
	"github.com/google/go-containerregistry/pkg/v1/partial"
)

// TestBaseIsStableAndFindable checks what ko needs of the base: the same
// digest every run (so .ko.yaml-style pins never go stale), one entry per
// digest however often it runs, each platform's image listed at the top of
// the layout (ko's cache looks children up there), and a non-root user.
func TestBaseIsStableAndFindable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "img")
	first, err := write(dir)
	if err != nil {
		t.Fatal(err)
	}
	second, err := write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Fatalf("two runs wrote %s and %s", first, second)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1+len(platforms) {
		t.Fatalf("layout lists %d entries, want the index and %d images", len(im.Manifests), len(platforms))
	}
	idx, err := top.ImageIndex(first)
	if err != nil {
		t.Fatal(err)
	}
	children, err := partial.FindManifests(idx, match.Platforms(platforms...))
	if err != nil || len(children) != len(platforms) {
		t.Fatalf("index holds %d platform images (%v)", len(children), err)
	}
	for _, c := range children {
		if found, _ := partial.FindManifests(top, match.Digests(c.Digest)); len(found) != 1 {
			t.Errorf("%s (%s) is not listed at the top of the layout", c.Digest, c.Platform)
		}
		img, err := top.Image(c.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Config.User != "65532:65532" || cfg.OS+"/"+cfg.Architecture != c.Platform.OS+"/"+c.Platform.Architecture {
			t.Errorf("config of %s: user %q, platform %s/%s", c.Platform, cfg.Config.User, cfg.OS, cfg.Architecture)
		}
	}
}
