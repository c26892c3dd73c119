package publish_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// A mirror made with CopyDependencies resolves with the original registry
// gone: a dependency pinned by digest is found on the registry its
// dependent came from.
func TestCopyDependenciesMakesAMirror(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	p.Publish("base:1", "base")
	team := p.Publish("acme/team:1", "team", p.Reg.Host+"/base:1")
	mirror := registrytest.New(t)

	g, err := p.Resolve(nil, "acme/team:1")
	if err != nil {
		t.Fatal(err)
	}
	copied, err := publish.CopyDependencies(ctx, g, p.Opener, mirror.Host, transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(copied) != 1 || copied[0].From.String() != p.Reg.Host+"/base:1@"+g.Order[0].Digest.String() ||
		copied[0].To.Registry != mirror.Host || copied[0].To.Repository != "base" || copied[0].Result.Descriptor.Digest != g.Order[0].Digest {
		t.Fatalf("copied %+v, want base to %s", copied, mirror.Host)
	}
	// The package itself goes as it is.
	src, err := p.Opener.Open(ctx, g.Root.Target.Ref, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := p.Opener.Open(ctx, mustRef(t, mirror.Host+"/acme/team:1"), store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Copy(ctx, src, dst, transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	src.Close()
	dst.Close()
	g.Close()

	p.Reg.Stop()
	g, err = resolve.Resolve(ctx, packagetest.Declared(t, mirror.Host+"/acme/team:1"), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	if err != nil {
		t.Fatalf("resolving from the mirror with the original gone: %v", err)
	}
	defer g.Close()
	if g.Root.Digest != team || len(g.Order) != 2 || g.Order[0].Target.Ref.Registry != mirror.Host {
		t.Errorf("resolved %v from %s, want team over base from the mirror", g.Order, g.Order[0].Target.Ref.Registry)
	}
	// The dependency keeps the reference its dependent recorded.
	if g.Order[0].Ref != p.Reg.Host+"/base:1" {
		t.Errorf("the dependency is named %s, want its recorded reference", g.Order[0].Ref)
	}
}

// Only registry packages can be copied to a mirror.
func TestCopyDependenciesRefusesDirectories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		"top/stax.yaml":             "name: top\nversion: 1.0.0\npackages:\n  - ../dep\n",
		"top/skills/top/SKILL.md":   "---\nname: top\ndescription: Top. Use when testing mirrors.\n---\nTop.\n",
		"dep/stax.yaml":             "name: dep\nversion: 1.0.0\n",
		"dep/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets. Use when testing mirrors.\n---\nHi.\n",
	})
	opener := packagetest.New(t).Opener
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, "./top"), root, resolve.Options{Source: cache.New(opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	_, err = publish.CopyDependencies(ctx, g, opener, "mirror.example", transfer.Options{})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "../dep is not a registry package: only those can be copied to mirror.example") {
		t.Errorf("CopyDependencies: %v (class %v), want an invalid-argument error naming ../dep", err, errdefs.Of(err))
	}
}

func mustRef(t *testing.T, s string) reference.Reference {
	t.Helper()
	r, err := reference.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// PushDependencies pushes the package directories a project declares
// with a reference, dependencies first, once each; the project then
// builds for publishing with them recorded by reference.
func TestPushDependencies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	host := p.Reg.Host
	root := t.TempDir()
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: A skill. Use when testing publishing.\n---\n" + name + "\n"
	}
	filetest.Write(t, root, map[string]string{
		"top/stax.yaml": "name: top\nversion: 1.0.0\npackages:\n" +
			"  - {path: ../mid, ref: " + host + "/mid:1.0.0}\n" +
			"  - {path: ../base, ref: " + host + "/base:1.0.0}\n",
		"top/skills/top/SKILL.md":   skill("top"),
		"mid/stax.yaml":             "name: mid\nversion: 1.0.0\npackages:\n  - {path: ../base, ref: " + host + "/base:1.0.0}\n",
		"mid/skills/mid/SKILL.md":   skill("mid"),
		"base/stax.yaml":            "name: base\nversion: 1.0.0\n",
		"base/skills/base/SKILL.md": skill("base"),
	})
	proj, err := staxyaml.Open(filepath.Join(root, "top"))
	if err != nil {
		t.Fatal(err)
	}
	opts := source.Options{Opener: p.Opener}
	published, err := publish.PushDependencies(ctx, proj, opts, transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, pub := range published {
		refs = append(refs, pub.Ref)
		src, err := p.Opener.Open(ctx, mustRef(t, pub.Ref), store.ReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		desc, err := src.Lookup(ctx)
		src.Close()
		if err != nil || desc.Digest != pub.Digest {
			t.Errorf("%s in the registry: %s, %v; want %s", pub.Ref, desc.Digest, err, pub.Digest)
		}
	}
	if want := []string{host + "/base:1.0.0", host + "/mid:1.0.0"}; !slices.Equal(refs, want) {
		t.Errorf("published %v, want %v: dependencies first, each once", refs, want)
	}

	layout, err := store.OpenLayout(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer layout.Close()
	opts.Build.Publish = true
	res, err := pack.Project(ctx, proj, layout, resolve.Dependencies(resolve.Options{Source: cache.New(opts.Opener, nil)}), opts.Build)
	if err != nil {
		t.Fatalf("building for publishing after its dependencies were: %v", err)
	}
	var recorded []string
	for _, dep := range res.Config.Packages {
		recorded = append(recorded, dep.Ref)
	}
	if want := []string{host + "/mid:1.0.0", host + "/base:1.0.0"}; !slices.Equal(recorded, want) {
		t.Errorf("recorded %v, want %v", recorded, want)
	}
}

// What PushDependencies refuses, with the class of each refusal.
func TestPushDependenciesRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	host := p.Reg.Host
	skill := "skills/s/SKILL.md"
	skillMD := "---\nname: s\ndescription: A skill. Use when testing publishing.\n---\nS.\n"
	for _, tt := range []struct {
		name  string
		files map[string]string
		class errdefs.Class
		want  string
	}{
		{"a reference without a tag", map[string]string{
			"top/stax.yaml": "name: top\nversion: 1.0.0\npackages:\n  - {path: ../dep, ref: " + host + "/dep}\n",
			"dep/stax.yaml": "name: dep\nversion: 1.0.0\n", "dep/" + skill: skillMD,
		}, errdefs.InvalidArgument, "ref " + host + "/dep names no tag: give the version, e.g. " + host + "/dep:1.0.0"},
		{"a cycle", map[string]string{
			"top/stax.yaml": "name: top\nversion: 1.0.0\npackages:\n  - {path: ../a, ref: " + host + "/a:1}\n",
			"a/stax.yaml":   "name: a\nversion: 1.0.0\npackages:\n  - {path: ../b, ref: " + host + "/b:1}\n",
			"b/stax.yaml":   "name: b\nversion: 1.0.0\npackages:\n  - {path: ../a, ref: " + host + "/a:1}\n",
		}, errdefs.Unresolved, "dependency cycle: "},
		{"an invalid dependency", map[string]string{
			"top/stax.yaml": "name: top\nversion: 1.0.0\npackages:\n  - {path: ../dep, ref: " + host + "/dep:1}\n",
			"dep/stax.yaml": "name: dep\nversion: 1.0.0\n", "dep/" + skill: "---\nname: s\n---\nNo description.\n",
		}, errdefs.InvalidArgument, "push ../dep to " + host + "/dep:1: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			filetest.Write(t, root, tt.files)
			proj, err := staxyaml.Open(filepath.Join(root, "top"))
			if err != nil {
				t.Fatal(err)
			}
			published, err := publish.PushDependencies(ctx, proj, source.Options{Opener: p.Opener}, transfer.Options{})
			if errdefs.Of(err) != tt.class || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("PushDependencies: %v (class %v), want %v saying %q", err, errdefs.Of(err), tt.class, tt.want)
			}
			if len(published) != 0 {
				t.Errorf("published %v before failing", published)
			}
		})
	}
}

// A cycle among the directories pushed out first is named from the
// package it starts at, as resolving names one (resolve.CheckNesting), not
// from the package being pushed.
func TestPushDependenciesNamesTheCycle(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		"top/stax.yaml": "name: top\nversion: 1.0.0\npackages:\n  - {path: ../a, ref: " + p.Reg.Host + "/a:1}\n",
		"a/stax.yaml":   "name: a\nversion: 1.0.0\npackages:\n  - {path: ../b, ref: " + p.Reg.Host + "/b:1}\n",
		"b/stax.yaml":   "name: b\nversion: 1.0.0\npackages:\n  - {path: ../a, ref: " + p.Reg.Host + "/a:1}\n",
	})
	proj, err := staxyaml.Open(filepath.Join(root, "top"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = publish.PushDependencies(context.Background(), proj, source.Options{Opener: p.Opener}, transfer.Options{})
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	if want := "dependency cycle: " + a + " → " + b + " → " + a; err == nil || err.Error() != want || errdefs.Of(err) != errdefs.Unresolved {
		t.Errorf("PushDependencies: %v (class %v), want %q", err, errdefs.Of(err), want)
	}
}

// A registry that refuses a push fails PushDependencies with its class
// and leaves the tag unset.
func TestPushDependenciesPushRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t, registrytest.WithFaults(registrytest.Fail("PUT", "/v2/dep/manifests/1.0.0", 403).Times(-1)))
	client, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	opener := &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: client}
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		"top/stax.yaml":         "name: top\nversion: 1.0.0\npackages:\n  - {path: ../dep, ref: " + reg.Host + "/dep:1.0.0}\n",
		"dep/stax.yaml":         "name: dep\nversion: 1.0.0\n",
		"dep/skills/s/SKILL.md": "---\nname: s\ndescription: A skill. Use when testing publishing.\n---\nS.\n",
	})
	proj, err := staxyaml.Open(filepath.Join(root, "top"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = publish.PushDependencies(ctx, proj, source.Options{Opener: opener}, transfer.Options{})
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), "push ../dep to "+reg.Host+"/dep:1.0.0") {
		t.Errorf("a refused push: %v (class %v), want a registry error naming the push", err, errdefs.Of(err))
	}
}
