package target_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

func newOpener(t *testing.T) *target.Opener {
	t.Helper()
	client, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	return &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: client}
}

func mustParse(t *testing.T, s string) reference.Reference {
	t.Helper()
	ref, err := reference.Parse(s)
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return ref
}

// buildInto builds a one-skill package into tgt, untagged.
func buildInto(t *testing.T, tgt *target.Target) pack.Result {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, "greet", "SKILL.md")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("---\nname: greet\ndescription: Greets. Use when testing targets.\n---\nHi.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := staxyaml.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pack.Build(context.Background(), tgt, pack.Options{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	return *res
}

func TestBareTag(t *testing.T) {
	tests := []struct {
		layout, arg, want string
	}{
		{"", "1.0.0", "1.0.0"},
		{"/l", "1.0.0", "oci:/l:1.0.0"},
		{"/l", "latest", "oci:/l:latest"},
		{"/l", "ghcr.io/a/b:1", "ghcr.io/a/b:1"},
		{"/l", "base:1", "base:1"},
		{"/l", "a/b", "a/b"},
		{"/l", "x@sha256:" + strings.Repeat("a", 64), "x@sha256:" + strings.Repeat("a", 64)},
		{"/l", "-bad", "-bad"},
	}
	for _, tt := range tests {
		o := &target.Opener{Layout: tt.layout}
		if got := o.BareTag(tt.arg); got != tt.want {
			t.Errorf("BareTag(%q) with layout %q = %q, want %q", tt.arg, tt.layout, got, tt.want)
		}
	}
}

// Every kind of target resolves, tags and explains the same way.
func TestTargetKinds(t *testing.T) {
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	layout := filepath.Join(t.TempDir(), "layout")
	tests := []struct {
		kind     target.Kind
		open     func(ref reference.Reference) (*target.Target, error)
		ref      string
		notFound string
	}{
		{target.KindLocal, func(ref reference.Reference) (*target.Target, error) {
			return opener.OpenLocal(ctx, ref, store.ReadWrite)
		}, "example.com/acme/skills:1.0.0", "is not in the local store"},
		{target.KindLayout, func(ref reference.Reference) (*target.Target, error) { return opener.Open(ctx, ref, store.ReadWrite) },
			"oci:" + layout + ":1.0.0", "not found in the OCI layout"},
		{target.KindRemote, func(ref reference.Reference) (*target.Target, error) { return opener.Open(ctx, ref, store.ReadOnly) },
			reg.Host + "/acme/skills:1.0.0", "not found"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			ref := mustParse(t, tt.ref)
			tgt, err := tt.open(ref)
			if err != nil {
				t.Fatal(err)
			}
			defer tgt.Close()
			if tgt.Kind != tt.kind || tgt.Name() != ref.Familiar() {
				t.Errorf("kind %s, name %s; want %s, %s", tgt.Kind, tgt.Name(), tt.kind, ref.Familiar())
			}
			if tt.kind == target.KindRemote && tgt.Host != reg.Host {
				t.Errorf("host %q, want %q", tgt.Host, reg.Host)
			}

			if _, err := tgt.Lookup(ctx); err == nil || !strings.Contains(err.Error(), tt.notFound) {
				t.Errorf("Lookup before anything is tagged: %v, want %q", err, tt.notFound)
			}
			res := buildInto(t, tgt)
			if err := tgt.TagAs(ctx, res.Descriptor); err != nil {
				t.Fatal(err)
			}
			got, err := tgt.Lookup(ctx)
			if err != nil || got.Digest != res.Descriptor.Digest {
				t.Fatalf("Lookup by tag = %s, %v; want %s", got.Digest, err, res.Descriptor.Digest)
			}
			byDigest := tgt.WithRef(reference.Reference{Registry: ref.Registry, Repository: ref.Repository, Layout: ref.Layout, Digest: res.Descriptor.Digest})
			if got, err := byDigest.Lookup(ctx); err != nil || got.Digest != res.Descriptor.Digest {
				t.Errorf("Lookup by digest = %s, %v", got.Digest, err)
			}
			if err := byDigest.Close(); err != nil {
				t.Errorf("closing a view: %v", err)
			}
			bare := tgt.WithRef(reference.Reference{Registry: ref.Registry, Repository: ref.Repository, Layout: ref.Layout})
			// Without tag or digest, the highest version tag (the only
			// tag here) is what the reference names; in a layout, its one
			// manifest.
			if got, err := bare.Lookup(ctx); err != nil || got.Digest != res.Descriptor.Digest || (bare.Ref.Tag != "1.0.0" && bare.Ref.Digest != res.Descriptor.Digest) {
				t.Errorf("Lookup without tag or digest = %s as %q, %v; want %s as 1.0.0", got.Digest, bare.Ref.Tag, err, res.Descriptor.Digest)
			}
			missing := tgt.WithRef(reference.Reference{Registry: ref.Registry, Repository: ref.Repository, Layout: ref.Layout, Tag: "1.0.1"})
			if _, err := missing.Lookup(ctx); err == nil || !strings.Contains(err.Error(), "has the tags 1.0.0 ") {
				t.Errorf("Lookup of a missing tag: %v, want the tags listed", err)
			}
			other := digest.FromString("another package")
			pinned := tgt.WithRef(reference.Reference{Registry: ref.Registry, Repository: ref.Repository, Layout: ref.Layout, Tag: "2", Digest: other})
			if err := pinned.TagAs(ctx, res.Descriptor); err == nil || !strings.Contains(err.Error(), "pins "+other.String()+", but the package is "+res.Descriptor.Digest.String()) {
				t.Errorf("TagAs with a reference pinning another digest: %v", err)
			}
			tags, err := tgt.Tags(ctx)
			if err != nil || !slices.Equal(tags, []string{"1.0.0"}) {
				t.Errorf("Tags = %v, %v; want 1.0.0 only", tags, err)
			}
		})
	}
}

func TestTagsOfAnEmptyRepository(t *testing.T) {
	reg := registrytest.New(t)
	tgt, err := newOpener(t).Open(context.Background(), mustParse(t, reg.Host+"/nothing/here:1"), store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := tgt.Tags(context.Background())
	if err != nil || len(tags) != 0 {
		t.Errorf("Tags of a repository nothing was pushed to = %v, %v; want none, no error", tags, err)
	}
}

// Close releases the store lock and runs cleanups after; a view's Close
// releases nothing.
func TestCloseAndCleanup(t *testing.T) {
	ctx := context.Background()
	opener := newOpener(t)
	tgt, err := opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	tgt = target.WithCleanup(tgt, func() error { order = append(order, "first"); return nil })
	boom := errors.New("boom")
	tgt = target.WithCleanup(tgt, func() error { order = append(order, "second"); return boom })

	tryLock := func() error {
		ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		s, err := store.OpenLocal(ctx, opener.StoreDir, store.ReadWrite)
		if err == nil {
			s.Close()
		}
		return err
	}
	if err := tgt.WithRef(mustParse(t, "a/b:1")).Close(); err != nil {
		t.Fatal(err)
	}
	if tryLock() == nil {
		t.Error("closing a view released the store lock")
	}
	if err := tgt.Close(); !errors.Is(err, boom) {
		t.Errorf("Close = %v, want the cleanup's error", err)
	}
	if !slices.Equal(order, []string{"first", "second"}) {
		t.Errorf("cleanups ran %v, want in the order added", order)
	}
	if err := tryLock(); err != nil {
		t.Errorf("the store is still locked after Close: %v", err)
	}
}

// A layout opened for reading must be one, and is never written; one
// opened for writing is created in a new directory, which Discard removes
// after a failed write.
func TestOpenLayoutModes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := newOpener(t)
	notLayout := t.TempDir()
	if err := os.WriteFile(filepath.Join(notLayout, "passwd"), []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Read, there is no layout there: the file system's error, as a
	// missing one; written to, the user's files are refused.
	for mode, class := range map[store.Mode]errdefs.Class{store.ReadOnly: errdefs.Local, store.ReadWrite: errdefs.InvalidArgument} {
		_, err := opener.Open(ctx, mustParse(t, "oci:"+notLayout+":1"), mode)
		if errdefs.Of(err) != class || !strings.Contains(err.Error(), notLayout+" is not an OCI image layout (no oci-layout file)") {
			t.Errorf("mode %d: Open a directory of other files = %v (class %v), want class %v", mode, err, errdefs.Of(err), class)
		}
		if entries, _ := os.ReadDir(notLayout); len(entries) != 1 {
			t.Errorf("mode %d: %d entries in the directory, want the one that was there", mode, len(entries))
		}
	}

	parent := filepath.Join(t.TempDir(), "new")
	ref := mustParse(t, "oci:"+filepath.Join(parent, "layout")+":1")
	if _, err := opener.Open(ctx, ref, store.ReadOnly); errdefs.Of(err) != errdefs.Local {
		t.Errorf("Open a missing layout for reading = %v", err)
	}
	if _, err := os.Stat(parent); !os.IsNotExist(err) {
		t.Fatalf("opening for reading created the layout: %v", err)
	}
	tgt, err := opener.Open(ctx, ref, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	buildInto(t, tgt)
	if err := tgt.Discard(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(parent); !os.IsNotExist(err) {
		t.Errorf("Discard left the layout it created: %v", err)
	}
	if err := tgt.Close(); err != nil {
		t.Errorf("Close after Discard: %v", err)
	}
}

// Opening a local store whose index.json was torn says, on Warnings,
// what was repaired.
func TestOpenLocalWarnsOfARepair(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := newOpener(t)
	tgt, err := opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	res := buildInto(t, tgt)
	tgt.Close()
	if err := os.WriteFile(filepath.Join(opener.StoreDir, "index.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings strings.Builder
	opener.Warnings = &warnings
	tgt, err = opener.OpenLocal(ctx, reference.Reference{Digest: res.Descriptor.Digest}, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	if !strings.HasPrefix(warnings.String(), "warning: index.json of the local store "+opener.StoreDir+" could not be read") {
		t.Errorf("warnings: %q", warnings.String())
	}
	if _, err := tgt.Lookup(ctx); err != nil {
		t.Errorf("the package after the repair: %v", err)
	}
}
