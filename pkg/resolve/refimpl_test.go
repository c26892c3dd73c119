package resolve_test

import (
	"context"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/transfer"
)

// A dependency the reference implementation lists in the packages layer,
// by tag and without a digest, is resolved by its tag: it is in the
// graph, under the package, at the digest the tag names.
func TestResolveDependencyListedWithoutDigest(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	dep := p.Publish("acme/base:1", "base")
	packagetest.RefImpl{
		Name: "agent", Version: "1.0.0",
		Skills:       map[string]string{"hello/SKILL.md": packagetest.Skill("hello")},
		Dependencies: []string{p.Reg.Host + "/acme/base:1"},
		Layers:       []packagetest.Layer{packagetest.Prompt()},
	}.Push(t, p.Reg.Host+"/acme/agent:1")

	g, err := p.Resolve(nil, "acme/agent:1")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if len(g.Order) != 2 || len(g.Root.Children) != 1 {
		t.Fatalf("order %v, children %v: the dependency was not resolved", g.Order, g.Root.Children)
	}
	child := g.Root.Children[0]
	if child.Digest != dep || child.Ref != p.Reg.Host+"/acme/base:1" {
		t.Errorf("dependency %s at %s, want %s", child.Ref, child.Digest, dep)
	}
	if len(child.Package.Config.Skills) != 1 || len(g.Root.Package.Config.Skills) != 1 {
		t.Errorf("skills: dependency %v, package %v", child.Package.Config.Skills, g.Root.Package.Config.Skills)
	}
}

// A pin (a lock's) fixes a dependency listed without a digest, as it
// fixes a declaration: the tag moving on does not change what resolves.
func TestPinFixesDependencyListedWithoutDigest(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	first := p.Publish("acme/base:1", "base")
	packagetest.RefImpl{Name: "agent", Version: "1.0.0", Dependencies: []string{p.Reg.Host + "/acme/base:1"}}.Push(t, p.Reg.Host+"/acme/agent:1")
	p.Publish("acme/base:1", "base moved on")

	g, err := p.Resolve(map[string]digest.Digest{p.Reg.Host + "/acme/base:1": first}, "acme/agent:1")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := g.Root.Children[0].Digest; got != first {
		t.Errorf("dependency at %s, want the pinned %s", got, first)
	}
}

// A dependency listed without a digest that names no package is a
// resolution failure naming it and the package that lists it.
func TestDependencyListedWithoutDigestMissing(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	missing := p.Reg.Host + "/acme/gone:1"
	packagetest.RefImpl{Name: "agent", Version: "1.0.0", Dependencies: []string{missing}}.Push(t, p.Reg.Host+"/acme/agent:1")

	_, err := p.Resolve(nil, "acme/agent:1")
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "acme/agent:1") {
		t.Fatalf("got %v (%v), want a resolution failure naming %s", err, errdefs.Of(err), missing)
	}
}

// What a packages layer lists is hostile input: a directory is refused
// with the fix, a layout or a malformed reference refuses the package as
// one stax cannot materialize, never as a registry failure.
func TestDependencyListedWithoutDigestHostile(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	for i, tc := range []struct {
		ref   string
		class errdefs.Class
		want  string
	}{
		{"./local-overrides", errdefs.Unresolved, "depends on the directory ./local-overrides"},
		{"oci:/etc", errdefs.FailedPrecondition, "names a directory of the machine"},
		{"UPPER case/..", errdefs.FailedPrecondition, "packages layer"},
	} {
		repo := "acme/hostile" + string(rune('a'+i)) + ":1"
		packagetest.RefImpl{Name: "agent", Version: "1.0.0", Dependencies: []string{tc.ref}}.Push(t, p.Reg.Host+"/"+repo)
		_, err := p.Resolve(nil, repo)
		if errdefs.Of(err) != tc.class || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v (%v), want %v naming %q", tc.ref, err, errdefs.Of(err), tc.class, tc.want)
		}
	}
}

// A mirror made with copy --with-dependencies holds the dependencies at
// their tags: a dependency listed by tag only resolves there first, so a
// mirror cut off from the original registry still resolves.
func TestDependencyListedWithoutDigestFromMirror(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	dep := p.Publish("acme/base:1", "base")
	packagetest.RefImpl{Name: "agent", Version: "1.0.0", Dependencies: []string{p.Reg.Host + "/acme/base:1"}}.Push(t, p.Reg.Host+"/acme/agent:1")
	mirror := registrytest.New(t)
	for _, repo := range []string{"acme/base:1", "acme/agent:1"} {
		src, err := p.Opener.Open(ctx, p.Ref(repo), store.ReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		to := p.Ref(repo)
		to.Registry = mirror.Host
		dst, err := p.Opener.Open(ctx, to, store.ReadWrite)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := transfer.Copy(ctx, src, dst, transfer.Options{AnyArtifact: true}); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
	p.Reg.Stop()

	g, err := resolve.Resolve(ctx, packagetest.Declared(t, mirror.Host+"/acme/agent:1"), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := g.Root.Children[0].Digest; got != dep {
		t.Errorf("dependency at %s, want %s", got, dep)
	}
}

// A dependency listed without a digest that a declaration with a version
// range also names resolves within the range, as that declaration does:
// looking it up ahead of the walk must not take the repository's default.
func TestDependencyListedWithoutDigestKeepsADeclaredRange(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	inRange := p.Publish("acme/base:1.0.0", "base one")
	p.Publish("acme/base:2.0.0", "base two")
	p.Publish("acme/base:latest", "base two")
	base := p.Reg.Host + "/acme/base"
	packagetest.RefImpl{Name: "agent", Version: "1.0.0", Dependencies: []string{base}}.Push(t, p.Reg.Host+"/acme/agent:1")

	rng, err := semver.ParseRange("^1")
	if err != nil {
		t.Fatal(err)
	}
	decls := []string{p.Reg.Host + "/acme/agent:1", base}
	g, err := resolve.Resolve(context.Background(), inRanges(t, map[string]*semver.Range{base: rng}, decls...), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, n := range g.Order {
		if n.Key == base && (n.Digest != inRange || n.Tag != "1.0.0") {
			t.Errorf("%s resolved to %s (tag %q), want 1.0.0 (%s) in ^1", n.Ref, n.Digest, n.Tag, inRange)
		}
	}
}
