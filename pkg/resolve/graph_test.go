package resolve_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// ReadLayer reads a layout's layer and checks all of it, even what the
// reader left unread.
func TestReadLayerFromALayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	layout := filepath.Join(t.TempDir(), "layout")
	pkgDir := t.TempDir()
	filetest.Write(t, pkgDir, map[string]string{
		"stax.yaml":             "name: dep\nversion: 1.0.0\n",
		"skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets. Use when testing layers.\n---\n" + strings.Repeat("Hello.\n", 100),
	})
	opener := packagetest.New(t).Opener
	pushDir(t, opener, pkgDir, "oci:"+layout+":1")
	pkgs := cache.New(opener, nil)
	defer pkgs.Close()
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, "oci:"+layout+":1"), "", resolve.Options{Source: pkgs})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	n := g.Root
	read := func(io.Reader) error { return nil } // reads nothing
	if err := resolve.ReadLayer(ctx, n, n.Target, read); err != nil {
		t.Fatalf("ReadLayer: %v", err)
	}
	blob := filepath.Join(layout, "blobs", "sha256", n.Package.Skills.Digest.Encoded())
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0xff
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	err = pkgs.ReadLayer(ctx, n, read)
	if errdefs.Of(err) != errdefs.DataLoss || !strings.Contains(err.Error(), "does not match its digest") {
		t.Errorf("an altered layer left unread: %v (class %v), want a data-loss error", err, errdefs.Of(err))
	}
	if err := os.Remove(blob); err != nil {
		t.Fatal(err)
	}
	// target.Explain reports a blob missing from a layout as the package
	// missing from it; only that the read fails, naming the layer, is
	// asserted here.
	err = resolve.ReadLayer(ctx, n, n.Target, read)
	if err == nil || !strings.Contains(err.Error(), n.Package.Skills.Digest.String()) {
		t.Errorf("a missing layer: %v, want an error naming it", err)
	}
}

// pushDir builds the package directory dir and copies it to ref.
func pushDir(t *testing.T, opener *target.Opener, dir, ref string) digest.Digest {
	t.Helper()
	ctx := context.Background()
	proj, err := staxyaml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := store.OpenLayout(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer layout.Close()
	res, err := pack.Project(ctx, proj, layout, resolve.Dependencies(resolve.Options{Source: cache.New(opener, nil)}), pack.Options{Publish: true})
	if err != nil {
		t.Fatal(err)
	}
	src, err := opener.Open(ctx, reference.Reference{Layout: layout.Dir, Digest: res.Descriptor.Digest}, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	r, err := reference.Parse(ref)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := opener.Open(ctx, r, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := transfer.Copy(ctx, src, dst, transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	return res.Descriptor.Digest
}

// A package whose config lists no skills, as other writers make them, has
// its skills read off its layer, with a notice saying so.
func TestResolveReadsSkillsOffTheLayer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := packagetest.New(t).Opener
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"greet/SKILL.md":  "---\nname: greeter\ndescription: Greets. Use when testing foreign packages.\n---\nHi.\n",
		"wave/SKILL.md":   "---\nname: wave\ndescription: Waves. Use when testing foreign packages.\n---\nWave.\n",
		"wave/scripts/go": "wave\n",
	})
	proj, err := staxyaml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	layoutDir := filepath.Join(t.TempDir(), "layout")
	layout, err := store.OpenLayout(ctx, layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	built, err := pack.Build(ctx, layout, pack.Options{Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	want := built.Config.Skills
	foreign := *built.Config
	foreign.Skills = nil
	desc, _, err := artifact.PackManifest(ctx, layout, &foreign, built.Layers, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := layout.Tag(ctx, desc, "foreign"); err != nil {
		t.Fatal(err)
	}
	layout.Close()

	g, err := resolve.Resolve(ctx, packagetest.Declared(t, "oci:"+layoutDir+":foreign"), "", resolve.Options{Source: cache.New(opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	pkg := g.Root.Package
	if len(pkg.Config.Skills) != len(want) {
		t.Fatalf("skills %+v, want %+v", pkg.Config.Skills, want)
	}
	for i, s := range pkg.Config.Skills {
		if s.Path != want[i].Path || s.Name != want[i].Name || s.Digest != want[i].Digest || s.Description != want[i].Description {
			t.Errorf("skill %d read off the layer: %+v, want %+v", i, s, want[i])
		}
	}
	if !slices.ContainsFunc(pkg.Notices, func(s string) bool {
		return strings.Contains(s, "lists no skills in its config; 2 read from its layer (greet, wave)")
	}) {
		t.Errorf("notices %q lack the one about reading the layer", pkg.Notices)
	}

	// Read with the limits of resolution.
	_, err = resolve.Resolve(ctx, packagetest.Declared(t, "oci:"+layoutDir+":foreign"), "", resolve.Options{Source: cache.New(opener, nil), Limits: layers.Limits{MaxFiles: 2}})
	if errdefs.Of(err) != errdefs.FailedPrecondition || !strings.Contains(err.Error(), "read the skills layer") {
		t.Errorf("a layer over MaxFiles: %v (class %v), want a failed-precondition error", err, errdefs.Of(err))
	}
}
