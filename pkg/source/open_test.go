package source_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

const (
	skillMD  = "---\nname: greet\ndescription: Greets. Use when testing sources.\nversion: 1.0.0\n---\nSay hello.\n"
	memoryMD = "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-01-01\n---\nPeople like a short hello.\n"
)

// newOpener is an opener with its own local store and registry client.
func newOpener(t *testing.T) *target.Opener {
	t.Helper()
	client, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	return &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: client}
}

// writePackage writes a package directory with the skill greet, its
// MEMORY.md and a reference file, and returns its absolute path.
func writePackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"stax.yaml":                         "name: demo\nversion: 1.0.0\n",
		"skills/greet/SKILL.md":             skillMD,
		"skills/greet/MEMORY.md":            memoryMD,
		"skills/greet/references/extra.md":  "More.\n",
		"skills/second/SKILL.md":            "---\nname: second\ndescription: Second. Use when testing sources.\n---\nTwo.\n",
		"skills/second/references/other.md": "Other.\n",
	})
	return dir
}

// publish builds dir and copies its package to ref (a registry reference
// or an oci: layout), returning the package's digest.
func publish(t *testing.T, opener *target.Opener, dir, ref string) digest.Digest {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, dir, source.Options{Opener: opener})
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
	res, err := transfer.Copy(ctx, src.Target, dst, transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Descriptor.Digest
}

func wantClass(t *testing.T, what string, err error, class errdefs.Class, contains ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want a %v error", what, class)
	}
	if got := errdefs.Of(err); got != class {
		t.Errorf("%s: class %v, want %v: %v", what, got, class, err)
	}
	for _, s := range contains {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s: %q lacks %q", what, err, s)
		}
	}
}

// A directory is built into a temporary layout: its package, skills and
// files read back as written, and Close removes the layout.
func TestOpenDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := writePackage(t)
	src, pkg, err := source.OpenPackage(ctx, dir, source.Options{Opener: newOpener(t)})
	if err != nil {
		t.Fatal(err)
	}
	if src.Built == nil || src.Name != dir || src.Kind != target.KindLayout {
		t.Errorf("source %q of kind %v, built %v: want the directory built into a layout", src.Name, src.Kind, src.Built != nil)
	}
	if src.Descriptor.Digest != src.Built.Descriptor.Digest {
		t.Errorf("descriptor %s, built %s", src.Descriptor.Digest, src.Built.Descriptor.Digest)
	}
	if pkg.Config.Name != "demo" || pkg.Config.Version != "1.0.0" || len(pkg.Config.Skills) != 2 {
		t.Errorf("config %+v, want demo 1.0.0 with two skills", pkg.Config)
	}
	if src.MaxSize() != 0 {
		t.Errorf("MaxSize %d, want the default 0", src.MaxSize())
	}

	snap, err := src.Snapshot(ctx, pkg)
	if err != nil {
		t.Fatal(err)
	}
	if dirs := snap.Dirs(); !slices.Equal(dirs, []string{"greet", "second"}) {
		t.Errorf("snapshot skills %v, want greet and second", dirs)
	}
	if v := snap.Skills["greet"].Version; v != "1.0.0" {
		t.Errorf("greet version %q, want 1.0.0", v)
	}

	files, err := src.ReadSkill(ctx, pkg, "greet")
	if err != nil {
		t.Fatal(err)
	}
	if string(files.SkillMD) != skillMD || string(files.Siblings["MEMORY.md"]) != memoryMD || len(files.Siblings) != 1 {
		t.Errorf("ReadSkill(greet) = %q with siblings %v", files.SkillMD, files.Siblings)
	}
	_, err = src.ReadSkill(ctx, pkg, "nope")
	wantClass(t, "ReadSkill(nope)", err, errdefs.InvalidArgument, dir+` has no skill "nope"; its skills: greet, second`)

	var paths []string
	err = src.Walk(ctx, pkg, func(h layers.Header, r io.Reader) error {
		if !h.Dir {
			paths = append(paths, h.Path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	want := []string{"greet/MEMORY.md", "greet/SKILL.md", "greet/references/extra.md", "second/SKILL.md", "second/references/other.md"}
	if !slices.Equal(paths, want) {
		t.Errorf("Walk visited %v, want %v", paths, want)
	}
	// An error of the callback ends the walk and comes back.
	stop := errors.New("stop here")
	if err := src.Walk(ctx, pkg, func(layers.Header, io.Reader) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Walk with a failing callback: %v, want %v", err, stop)
	}

	layout := src.LayoutDir()
	if _, err := os.Stat(layout); err != nil {
		t.Fatalf("the build layout: %v", err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(layout); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close the build layout %s is still there: %v", layout, err)
	}
}

// A directory that is not a valid package is refused with the class of
// what is wrong, and leaves no build layout behind.
func TestOpenDirectoryRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := newOpener(t)

	missingDir := filepath.Join(t.TempDir(), "missing")
	_, err := source.Open(ctx, missingDir, source.Options{Opener: opener})
	wantClass(t, "a missing directory", err, errdefs.Local, "open package "+missingDir)

	invalid := t.TempDir()
	filetest.Write(t, invalid, map[string]string{"skills/bad/SKILL.md": "---\nname: bad\n---\nNo description.\n"})
	_, err = source.Open(ctx, invalid, source.Options{Opener: opener})
	wantClass(t, "an invalid skill", err, errdefs.InvalidArgument, "do not validate")
	var invalidErr *pack.InvalidError
	if !errors.As(err, &invalidErr) {
		t.Errorf("an invalid skill: %T, want a *pack.InvalidError listing what to fix", err)
	}

	// A skills layer larger than MaxSize is never built.
	_, err = source.Open(ctx, writePackage(t), source.Options{Opener: opener, Limits: layers.Limits{MaxSize: 64}})
	if err == nil {
		t.Fatal("a package over MaxSize was built")
	}
	var sizeErr *layers.SizeError
	if !errors.As(err, &sizeErr) {
		t.Errorf("a package over MaxSize: %v, want a *layers.SizeError", err)
	}
}

// A package without a skills layer has an empty snapshot and nothing to
// walk.
func TestOpenDirectoryWithoutSkills(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		"top/stax.yaml":             "name: top\nversion: 1.0.0\npackages:\n  - ../dep\n",
		"dep/stax.yaml":             "name: dep\nversion: 1.0.0\n",
		"dep/skills/greet/SKILL.md": skillMD,
	})
	src, pkg, err := source.OpenPackage(ctx, filepath.Join(root, "top"), source.Options{Opener: newOpener(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if pkg.Skills != nil || len(pkg.Config.Packages) != 1 {
		t.Fatalf("package has skills layer %v and packages %v, want only one package", pkg.Skills, pkg.Config.Packages)
	}
	snap, err := src.Snapshot(ctx, pkg)
	if err != nil || len(snap.Skills) != 0 {
		t.Errorf("Snapshot = %v, %v; want an empty snapshot", snap, err)
	}
	called := false
	if err := src.Walk(ctx, pkg, func(layers.Header, io.Reader) error { called = true; return nil }); err != nil || called {
		t.Errorf("Walk = %v, called %v; want nothing walked", err, called)
	}
}

// Where a reference is looked for follows the scope: the local store,
// then the registry; the registry only; or the local store only.
func TestOpenScopes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	want := publish(t, opener, writePackage(t), reg.Host+"/skills/demo:1.0.0")
	publish(t, opener, writePackage(t), reg.Host+"/skills/demo:latest")

	for _, tt := range []struct {
		name  string
		arg   string
		scope source.Scope
	}{
		{"local then remote", reg.Host + "/skills/demo:1.0.0", source.LocalThenRemote},
		{"remote only", reg.Host + "/skills/demo:1.0.0", source.RemoteOnly},
		{"no tag is latest", reg.Host + "/skills/demo", source.RemoteOnly},
	} {
		src, pkg, err := source.OpenPackage(ctx, tt.arg, source.Options{Opener: opener, Scope: tt.scope})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if src.Kind != target.KindRemote || src.Descriptor.Digest != want || src.Name != tt.arg || pkg.Config.Name != "demo" {
			t.Errorf("%s: opened %s (%v) as %q, want %s from the registry", tt.name, src.Descriptor.Digest, src.Kind, src.Name, want)
		}
		src.Close()
	}

	_, err := source.Open(ctx, reg.Host+"/skills/demo:1.0.0", source.Options{Opener: opener, Scope: source.LocalOnly})
	wantClass(t, "local only", err, errdefs.InvalidArgument, "is not in the local store")

	_, err = source.Open(ctx, reg.Host+"/skills/demo:9.9.9", source.Options{Opener: opener, Scope: source.RemoteOnly})
	// The registry's answer keeps the registry's class, and says so.
	wantClass(t, "a missing tag", err, errdefs.Unavailable, "skills/demo:9.9.9 not found on "+reg.Host)

	_, err = source.Open(ctx, "Not A Reference", source.Options{Opener: opener})
	wantClass(t, "a malformed reference", err, errdefs.InvalidArgument)
}

// A package pulled into the local store is found there first, without
// asking its registry.
func TestOpenPrefersTheLocalStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	ref := reg.Host + "/skills/demo:1.0.0"
	want := publish(t, opener, writePackage(t), ref)
	r, _ := reference.Parse(ref)
	remote, err := opener.Open(ctx, r, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	local, err := opener.OpenLocal(ctx, r, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Copy(ctx, remote, local, transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	local.Close()
	reg.Stop()

	src, err := source.Open(ctx, ref, source.Options{Opener: opener})
	if err != nil {
		t.Fatalf("with its registry gone: %v", err)
	}
	defer src.Close()
	if src.Kind != target.KindLocal || src.Descriptor.Digest != want {
		t.Errorf("opened %s from %v, want %s from the local store", src.Descriptor.Digest, src.Kind, want)
	}
}

// A reference neither in the local store nor reachable says both, with
// the registry's class.
func TestOpenFallbackFailure(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	reg.Stop()
	_, err := source.Open(context.Background(), reg.Host+"/skills/demo:1.0.0", source.Options{Opener: newOpener(t)})
	wantClass(t, "an unreachable registry", err, errdefs.Unavailable, "skills/demo:1.0.0 is not in the local store, and asking its registry failed")
}

// An oci: layout is read where it is, by tag or digest; a missing layout
// or tag is the user's to fix.
func TestOpenLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := newOpener(t)
	layout := filepath.Join(t.TempDir(), "layout")
	want := publish(t, opener, writePackage(t), "oci:"+layout+":1.0.0")

	for _, arg := range []string{"oci:" + layout + ":1.0.0", "oci:" + layout + "@" + want.String()} {
		src, pkg, err := source.OpenPackage(ctx, arg, source.Options{Opener: opener, Scope: source.LocalOnly})
		if err != nil {
			t.Errorf("%s: %v", arg, err)
			continue
		}
		if src.Kind != target.KindLayout || src.Descriptor.Digest != want || pkg.Skills == nil {
			t.Errorf("%s: opened %s (%v)", arg, src.Descriptor.Digest, src.Kind)
		}
		src.Close()
	}
	// With --oci-layout, a bare tag names a tag of that layout.
	bare := &target.Opener{StoreDir: opener.StoreDir, Layout: layout, Registry: opener.Registry}
	src, err := source.Open(ctx, "1.0.0", source.Options{Opener: bare})
	if err != nil {
		t.Fatalf("bare tag: %v", err)
	}
	if src.Descriptor.Digest != want {
		t.Errorf("bare tag opened %s, want %s", src.Descriptor.Digest, want)
	}
	src.Close()

	_, err = source.Open(ctx, "oci:"+layout+":2.0.0", source.Options{Opener: opener})
	wantClass(t, "a missing tag", err, errdefs.InvalidArgument, "not found in the OCI layout")
	_, err = source.Open(ctx, "oci:"+filepath.Join(t.TempDir(), "none")+":1.0.0", source.Options{Opener: opener})
	if err == nil {
		t.Error("a missing layout opened")
	}
	if _, err := os.Stat(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reading a missing layout created it: %v", err)
	}
}

// A skills layer whose blob is gone from a layout is a local failure that
// names the layout's package; one that does not match its digest is
// corrupt.
func TestSnapshotOfADamagedLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := newOpener(t)
	layout := filepath.Join(t.TempDir(), "layout")
	publish(t, opener, writePackage(t), "oci:"+layout+":1.0.0")
	arg := "oci:" + layout + ":1.0.0"
	src, pkg, err := source.OpenPackage(ctx, arg, source.Options{Opener: opener})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	blob := filepath.Join(layout, "blobs", pkg.Skills.Digest.Algorithm().String(), pkg.Skills.Digest.Encoded())

	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = src.Snapshot(ctx, pkg)
	wantClass(t, "an altered blob", err, errdefs.DataLoss, arg, pkg.Skills.Digest.String())

	if err := os.Remove(blob); err != nil {
		t.Fatal(err)
	}
	_, err = src.Snapshot(ctx, pkg)
	wantClass(t, "a missing blob", err, errdefs.Local, arg)
	err = src.Walk(ctx, pkg, func(layers.Header, io.Reader) error { return nil })
	wantClass(t, "a walk over a missing blob", err, errdefs.Local, arg)
}

// Reading a skills layer from a registry keeps the class of what failed:
// a blob the registry will not serve is the registry's; content that does
// not match its digest is corrupt; a layer over the limits is refused.
// (A body that breaks off is read again after a backoff, which the
// registry package tests with its clock.)
func TestSnapshotFromARegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opener := newOpener(t)
	// The package is built once, to learn the skills layer's digest.
	dir := writePackage(t)
	built, pkg, err := source.OpenPackage(ctx, dir, source.Options{Opener: opener})
	if err != nil {
		t.Fatal(err)
	}
	layer := pkg.Skills.Digest
	built.Close()
	blobPath := "/v2/skills/demo/blobs/" + layer.String()

	for _, tt := range []struct {
		name     string
		fault    *registrytest.Fault
		maxFiles int
		class    errdefs.Class
	}{
		{"not served", registrytest.Fail("GET", blobPath, 404), 0, errdefs.Unavailable},
		{"corrupt", registrytest.CorruptBlob("skills/demo", layer), 0, errdefs.DataLoss},
		{"too many files", nil, 2, errdefs.FailedPrecondition},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registrytest.New(t)
			ref := reg.Host + "/skills/demo:1.0.0"
			publish(t, opener, dir, ref)
			if tt.fault != nil {
				reg.AddFaults(tt.fault)
			}
			src, pkg, err := source.OpenPackage(ctx, ref, source.Options{Opener: opener, Scope: source.RemoteOnly, Limits: layers.Limits{MaxFiles: tt.maxFiles}})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			_, err = src.Snapshot(ctx, pkg)
			wantClass(t, "Snapshot", err, tt.class, layer.String())
			if tt.fault != nil && tt.fault.Hits() == 0 {
				t.Error("the fault was never injected")
			}
		})
	}
}

// OpenExact looks in one place only: a layout that must exist, the local
// store, or the registry.
func TestOpenExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	ref := reg.Host + "/skills/demo"
	want := publish(t, opener, writePackage(t), ref+":latest")

	src, err := source.OpenExact(ctx, opener, ref, false, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	if src.Kind != target.KindRemote || src.Descriptor.Digest != want || src.Ref.Tag != "latest" {
		t.Errorf("opened %s (%v) tag %q, want %s from the registry at latest", src.Descriptor.Digest, src.Kind, src.Ref.Tag, want)
	}
	src.Close()

	// Never in the local store, and never falling back to the registry.
	_, err = source.OpenExact(ctx, opener, ref, true, store.ReadOnly)
	wantClass(t, "local", err, errdefs.InvalidArgument, "is not in the local store")

	missing := filepath.Join(t.TempDir(), "missing")
	_, err = source.OpenExact(ctx, opener, "oci:"+missing+":1.0.0", false, store.ReadWrite)
	wantClass(t, "a missing layout", err, errdefs.Local, "no OCI layout at "+missing)
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenExact created the missing layout: %v", err)
	}

	layout := filepath.Join(t.TempDir(), "layout")
	publish(t, opener, writePackage(t), "oci:"+layout+":1.0.0")
	src, err = source.OpenExact(ctx, opener, "oci:"+layout+":1.0.0", true, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if src.Kind != target.KindLayout || src.Descriptor.Digest != want {
		t.Errorf("layout: opened %s (%v), want %s", src.Descriptor.Digest, src.Kind, want)
	}
	src.Close()

	_, err = source.OpenExact(ctx, opener, "Not A Reference", false, store.ReadOnly)
	wantClass(t, "a malformed reference", err, errdefs.InvalidArgument)
}

// TrustSource opens a package by reference and digest, where its
// signatures are.
func TestTrustSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	ref := reg.Host + "/skills/demo:1.0.0"
	want := publish(t, opener, writePackage(t), ref)

	open := source.TrustSource(opener)
	storage, desc, release, err := open(ctx, ref, want)
	if err != nil {
		t.Fatal(err)
	}
	if desc.Digest != want {
		t.Errorf("opened %s, want %s", desc.Digest, want)
	}
	if ok, err := storage.Exists(ctx, desc); err != nil || !ok {
		t.Errorf("the package is not in what TrustSource opened: %v, %v", ok, err)
	}
	release()

	_, _, _, err = open(ctx, ref, digest.FromString("another package"))
	wantClass(t, "an unknown digest", err, errdefs.Unavailable, "not found on "+reg.Host)
	_, _, _, err = open(ctx, "Not A Reference", want)
	wantClass(t, "a malformed reference", err, errdefs.InvalidArgument)
}

func TestAmbiguousWarning(t *testing.T) {
	t.Parallel()
	got := source.AmbiguousWarning("base")
	for _, want := range []string{"base is a directory here", "./base", "docker.io/library/base"} {
		if !strings.Contains(got, want) {
			t.Errorf("AmbiguousWarning(base) = %q, lacks %q", got, want)
		}
	}
	// A directory named as a git repository's shorthand is not a
	// registry reference: the warning says how to write the repository.
	got = source.AmbiguousWarning("github.com/acme/skills")
	for _, want := range []string{"github.com/acme/skills is a directory here", "./github.com/acme/skills", "git repository", "git+https://github.com/acme/skills.git"} {
		if !strings.Contains(got, want) {
			t.Errorf("AmbiguousWarning(github.com/acme/skills) = %q, lacks %q", got, want)
		}
	}
	if strings.Contains(got, "docker.io") {
		t.Errorf("AmbiguousWarning(github.com/acme/skills) = %q, names an image", got)
	}
}
