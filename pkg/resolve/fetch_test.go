package resolve_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/semver"
)

// requestsOf lists reg's requests as "METHOD path", the paths relative to
// /v2/.
func requestsOf(reg *registrytest.Registry) []string {
	var out []string
	for _, q := range reg.Requests() {
		out = append(out, q.Method+" "+strings.TrimPrefix(q.Path, "/v2/"))
	}
	return out
}

// pinsOf are the pins of g's packages, as a lock gives them.
func pinsOf(g *resolve.Graph) map[string]digest.Digest {
	pins := map[string]digest.Digest{}
	for _, n := range g.Order {
		pins[n.Key] = n.Digest
	}
	return pins
}

// Fetched at once, declarations that fail report the failure a walk one
// after another reports: the first declaration's, whichever failed first.
func TestTheFirstFailureInOrderIsReported(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("ok:1", "ok")
	decls := []string{p.Reg.Host + "/ok:1", p.Reg.Host + "/first:1", p.Reg.Host + "/second:1"}
	// The second's lookup fails at once; the first's only once all three
	// were asked for, which a walk one after another never does.
	p.Reg.AddFaults(registrytest.Fail(http.MethodGet, "/second/manifests/", http.StatusForbidden),
		registrytest.Gate(http.MethodGet, "/(ok|first)/manifests/", 2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := resolve.Resolve(ctx, packagetest.Declared(t, decls...), "", resolve.Options{Source: cache.New(p.Opener, nil), Concurrency: 3})
	if err == nil || !strings.Contains(err.Error(), "first:1") || strings.Contains(err.Error(), "second") || ctx.Err() != nil {
		t.Fatalf("error %v, want the first declaration's, before the deadline", err)
	}
}

// A lock fixes the digest of every package, dependencies included: a
// pinned resolution asks for a dependency together with its dependent,
// rather than once the dependent's config is read.
func TestPinnedDependenciesAreFetchedWithTheirDependents(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("base:1", "base")
	p.Publish("team:1", "team", p.Reg.Host+"/base:1")
	decls := []string{p.Reg.Host + "/team:1"}
	first, err := resolve.Resolve(context.Background(), packagetest.Declared(t, decls...), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	pins := pinsOf(first)
	first.Close()
	p.Reg.ResetRequests()

	both := registrytest.Gate(http.MethodGet, "/(team|base)/manifests/", 2)
	p.Reg.AddFaults(both)
	// A dependency asked for only after its dependent is held until this
	// gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, decls...), "", resolve.Options{Source: cache.New(p.Opener, nil), Pins: pins, Concurrency: 2})
	if err != nil || !both.Released() {
		t.Fatalf("the dependency was not asked for with its dependent: %v", err)
	}
	defer g.Close()
	if fmt.Sprint(pinsOf(g)) != fmt.Sprint(pins) {
		t.Errorf("resolved %v, want %v", pinsOf(g), pins)
	}
	// Each package once: the lookup the lock started is the one the walk
	// takes.
	if reqs := requestsOf(p.Reg); len(reqs) != 4 {
		t.Errorf("%d requests, want a manifest and a config of each package:\n%v", len(reqs), reqs)
	}
}

// Declarations in version ranges are resolved at once too, each in its
// range: the tags of their repositories are listed at once.
func TestRangedDeclarationsAreResolvedAtOnce(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	decls := make([]string, 3)
	ranges := map[string]*semver.Range{}
	caret1, err := semver.ParseRange("^1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	for i := range decls {
		for _, v := range []string{"1.0.0", "1.1.0", "2.0.0"} {
			p.Publish(fmt.Sprintf("p%d:%s", i, v), fmt.Sprintf("package %d at %s", i, v))
		}
		decls[i] = fmt.Sprintf("%s/p%d", p.Reg.Host, i)
		ranges[decls[i]] = caret1
	}
	tags := registrytest.Gate(http.MethodGet, "/tags/list", len(decls))
	p.Reg.AddFaults(tags)
	// A walk that lists one repository's tags after another is held
	// until it gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := resolve.Resolve(ctx, inRanges(t, ranges, decls...), "", resolve.Options{Source: cache.New(p.Opener, nil), Concurrency: len(decls)})
	if err != nil || !tags.Released() {
		t.Fatalf("the tags were not listed at once: %v", err)
	}
	defer g.Close()
	for _, n := range g.Direct {
		if n.Tag != "1.1.0" || n.Range != "^1.0.0" {
			t.Errorf("%s resolved to tag %q in range %q, want 1.1.0 in ^1.0.0", n.Ref, n.Tag, n.Range)
		}
	}
}

// A declaration whose range no tag is in fails as when it is resolved on
// its own, naming it, though it was looked up with the others.
func TestRangedDeclarationWithNoTagInRangeIsNamed(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("ok:1.0.0", "ok")
	p.Publish("old:1.0.0", "old")
	caret2, err := semver.ParseRange("^2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	decls := []string{p.Reg.Host + "/ok:1.0.0", p.Reg.Host + "/old"}
	_, err = resolve.Resolve(context.Background(), inRanges(t, map[string]*semver.Range{decls[1]: caret2}, decls...), "", resolve.Options{Source: cache.New(p.Opener, nil), Concurrency: 2})
	want := "resolve " + decls[1] + ": no tag of " + p.Reg.Host + "/old is a version in the range ^2.0.0: its tags are 1.0.0"
	if err == nil || !strings.HasPrefix(err.Error(), want) || errdefs.Of(err) != errdefs.Unresolved {
		t.Fatalf("error %v (%v), want it to start %q, unresolved", err, errdefs.Of(err), want)
	}
}

// A directory declaring its dependencies in version ranges is built while
// the registry packages declared beside it, and their dependencies, are
// looked up ahead: the ranges it records are read by those lookups at the
// same time (run with -race).
func TestRangesOfADirectoryWhileLookingAhead(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("acme/base:1", "base")
	decls := []string{filepath.Join(t.TempDir(), "proj")}
	def := "name: proj\nversion: 1.0.0\npackages:\n"
	for i := range 6 {
		p.Publish(fmt.Sprintf("acme/r%d:1.0.0", i), fmt.Sprintf("r%d", i))
		def += fmt.Sprintf("  - {ref: %s/acme/r%d, version: ^1.0.0}\n", p.Reg.Host, i)
		p.Publish(fmt.Sprintf("acme/team%d:1", i), fmt.Sprintf("team %d", i), p.Reg.Host+"/acme/base:1")
		decls = append(decls, fmt.Sprintf("%s/acme/team%d:1", p.Reg.Host, i))
	}
	filetest.WriteFile(t, filepath.Join(decls[0], "stax.yaml"), def)
	filetest.WriteFile(t, filepath.Join(decls[0], "skills", "own", "SKILL.md"), "---\nname: own\ndescription: The project's own skill. Use when testing.\n---\nOwn.\n")
	// The race detector sees the two only when both happen in a run.
	for range 4 {
		g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, decls...), "", resolve.Options{Source: cache.New(p.Opener, nil), Concurrency: 8})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range g.Direct[0].Children {
			if n.Tag != "1.0.0" || n.Range != "^1.0.0" {
				t.Errorf("%s resolved to tag %q in range %q, want 1.0.0 in ^1.0.0", n.Ref, n.Tag, n.Range)
			}
		}
		g.Close()
	}
}

// inRanges are written, declarations of the command line, each in its
// range among ranges.
func inRanges(t testing.TB, ranges map[string]*semver.Range, written ...string) []declaration.Declaration {
	t.Helper()
	decls := packagetest.Declared(t, written...)
	for i, d := range decls {
		var err error
		if decls[i], err = d.InRange(ranges[d.Written]); err != nil {
			t.Fatal(err)
		}
	}
	return decls
}

// A package a project declares that fails to resolve is named with its
// line of the project's stax.yaml, and keeps its class.
func TestDeclaredPackageFailureNamesItsLine(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("acme/base:1.0.0", "base")
	proj := filepath.Join(t.TempDir(), "proj")
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "name: proj\nversion: 1.0.0\npackages:\n  - "+p.Reg.Host+"/acme/base:1.0.0\n  - {ref: "+p.Reg.Host+"/acme/base, version: ^2.0.0}\n")
	filetest.WriteFile(t, filepath.Join(proj, "skills", "own", "SKILL.md"), "---\nname: own\ndescription: The project's own skill. Use when testing.\n---\nOwn.\n")
	_, err := resolve.Resolve(context.Background(), packagetest.Declared(t, proj), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	want := filepath.Join(proj, "stax.yaml") + ":5: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "is a version in the range ^2.0.0") || errdefs.Of(err) != errdefs.Unresolved {
		t.Fatalf("error %v (%v), want it to start %q, unresolved", err, errdefs.Of(err), want)
	}
}
