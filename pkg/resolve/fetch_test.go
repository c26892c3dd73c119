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
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
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

// resolveAndStore resolves decls with opts and stores the graph, which
// it closes: the store is unlocked, and the nodes are to be read only.
func resolveAndStore(t *testing.T, p *packagetest.Publisher, opts resolve.Options, decls ...string) *resolve.Graph {
	t.Helper()
	opts.Opener = p.Opener
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, decls...), "", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Store(context.Background(), p.Opener, transfer.Options{Concurrency: opts.Concurrency}); err != nil {
		t.Fatal(err)
	}
	return g
}

// publishTeamAndSolo publishes team:1, which depends on base:1, and
// solo:1, and returns the declarations of team and solo.
func publishTeamAndSolo(t *testing.T) (*packagetest.Publisher, []string) {
	t.Helper()
	p := packagetest.New(t)
	p.Publish("base:1", "base")
	p.Publish("team:1", "team", p.Reg.Host+"/base:1")
	p.Publish("solo:1", "solo")
	return p, []string{p.Reg.Host + "/team:1", p.Reg.Host + "/solo:1"}
}

// Resolving and storing a registry package asks for its manifest once, by
// tag or by digest (no HEAD first), its config once and each layer once,
// whether the layers are fetched ahead (as install does) or when the
// graph is stored.
func TestResolveAndStoreAskEachThingOnce(t *testing.T) {
	t.Parallel()
	for name, fetchLayers := range map[string]func(declaration.Declaration, digest.Digest) bool{"when stored": nil, "ahead": fetchAll} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, decls := publishTeamAndSolo(t)
			p.Reg.ResetRequests()
			g := resolveAndStore(t, p, resolve.Options{FetchLayers: fetchLayers}, decls...)
			want := map[string]int{"GET team/manifests/1": 1, "GET solo/manifests/1": 1}
			for _, n := range g.Order {
				repo := strings.TrimPrefix(n.Key, p.Reg.Host+"/")
				repo, _, _ = strings.Cut(repo, ":")
				if repo == "base" {
					want["GET base/manifests/"+n.Digest.String()] = 1
				}
				want["GET "+repo+"/blobs/"+n.Package.Manifest.Config.Digest.String()]++
				for _, layer := range n.Package.Manifest.Layers {
					want["GET "+repo+"/blobs/"+layer.Digest.String()]++
				}
			}
			got := map[string]int{}
			for _, q := range requestsOf(p.Reg) {
				got[q]++
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("requests:\n%v\nwant one each of:\n%v", requestsOf(p.Reg), want)
			}
		})
	}
}

// pinsOf are the pins of g's packages, as a lock gives them.
func pinsOf(g *resolve.Graph) map[string]digest.Digest {
	pins := map[string]digest.Digest{}
	for _, n := range g.Order {
		pins[n.Key] = n.Digest
	}
	return pins
}

// Packages pinned by digest that the local store holds are resolved and
// stored without a request; a tag is still asked of the registry, which
// sees it move.
func TestPinnedPackagesInTheStoreAskNothing(t *testing.T) {
	t.Parallel()
	p, decls := publishTeamAndSolo(t)
	first := resolveAndStore(t, p, resolve.Options{}, decls...)
	p.Reg.ResetRequests()

	// Fetching layers ahead, as a frozen install does, finds them stored.
	again := resolveAndStore(t, p, resolve.Options{Pins: pinsOf(first), FetchLayers: fetchAll}, decls...)
	if reqs := requestsOf(p.Reg); len(reqs) != 0 {
		t.Errorf("a pinned resolution of stored packages made %d requests: %v", len(reqs), reqs)
	}
	if fmt.Sprint(pinsOf(again)) != fmt.Sprint(pinsOf(first)) {
		t.Errorf("resolved %v, want %v", pinsOf(again), pinsOf(first))
	}

	moved := p.Publish("solo:1", "solo, moved")
	g := resolveAndStore(t, p, resolve.Options{}, decls...)
	if got := g.Order[len(g.Order)-1].Digest; got != moved {
		t.Errorf("solo:1 resolved to %s from the store, want %s, where the tag moved", got, moved)
	}
}

// The packages of one level are fetched at once: the manifests of the
// declarations, then their layers as the graph is stored.
func TestOneLevelIsFetchedAtOnce(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	decls := make([]string, 3)
	for i := range decls {
		p.Publish(fmt.Sprintf("p%d:1", i), fmt.Sprintf("package %d", i))
		decls[i] = fmt.Sprintf("%s/p%d:1", p.Reg.Host, i)
	}
	manifests := registrytest.Gate(http.MethodGet, "/manifests/", len(decls))
	layers := registrytest.Gate(http.MethodGet, "/blobs/", len(decls))
	p.Reg.AddFaults(manifests)
	// A client that asks one after another is held until it gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, decls...), "", resolve.Options{Opener: p.Opener, Concurrency: len(decls)})
	if err != nil || !manifests.Released() {
		t.Fatalf("the manifests were not asked for at once: %v", err)
	}
	defer g.Close()
	p.Reg.AddFaults(layers)
	if _, err := g.Store(ctx, p.Opener, transfer.Options{Concurrency: len(decls)}); err != nil || !layers.Released() {
		t.Fatalf("the layers were not fetched at once: %v", err)
	}
}

// Two packages with the same skills layer, stored at once: the layer is
// fetched once, and both read it from the store.
func TestASharedLayerIsFetchedOnce(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	var decls []string
	for _, name := range []string{"one", "two"} {
		dir := t.TempDir()
		filetest.Write(t, dir, map[string]string{
			"stax.yaml":            "name: " + name + "\nversion: 1.0.0\n",
			"skills/same/SKILL.md": "---\nname: same\ndescription: The same skill. Use when testing.\n---\nSame.\n",
		})
		decls = append(decls, p.Reg.Host+"/"+name+":1")
		pushDir(t, p.Opener, dir, decls[len(decls)-1])
	}
	p.Reg.ResetRequests()
	g := resolveAndStore(t, p, resolve.Options{Concurrency: 2}, decls...)
	layer := g.Order[0].Package.Skills.Digest
	if g.Order[1].Package.Skills.Digest != layer {
		t.Fatalf("the packages have different layers: %s, %s", layer, g.Order[1].Package.Skills.Digest)
	}
	if got := blobGets(p.Reg, layer); got != 1 {
		t.Errorf("the shared layer was fetched %d times, want once", got)
	}
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
	_, err := resolve.Resolve(ctx, packagetest.Declared(t, decls...), "", resolve.Options{Opener: p.Opener, Concurrency: 3})
	if err == nil || !strings.Contains(err.Error(), "first:1") || strings.Contains(err.Error(), "second") || ctx.Err() != nil {
		t.Fatalf("error %v, want the first declaration's, before the deadline", err)
	}
}

// A package is readable from the store as soon as it is stored, while
// another package's layer is still being fetched.
func TestAStoredPackageIsReadableBeforeTheOthersAre(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("first:1", "first")
	p.Publish("held:1", "held")
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, p.Reg.Host+"/first:1", p.Reg.Host+"/held:1"), "", resolve.Options{Opener: p.Opener})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// Only the store asks for held's layer, once: the gate holds it until
	// the store is cancelled.
	p.Reg.AddFaults(registrytest.Gate(http.MethodGet, "/held/blobs/", 2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	storing := g.StartStore(ctx, p.Opener, transfer.Options{Concurrency: 2})
	first := g.Order[0]
	if err := storing.Stored(ctx, first); err != nil {
		t.Fatalf("%s was not stored while the other package's layer was held: %v", first.Ref, err)
	}
	if first.Target.Kind != target.KindLocal {
		t.Errorf("%s is read from a %v target once stored, want the local store", first.Ref, first.Target.Kind)
	}
	cancel()
	if _, err := storing.Wait(); err == nil {
		t.Error("the store of a package whose layer never came succeeded")
	}
}

// A package the store never got to reports the store's failure.
func TestAPackageNotStoredReportsTheStoresFailure(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("broken:1", "broken")
	p.Publish("after:1", "after")
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, p.Reg.Host+"/broken:1", p.Reg.Host+"/after:1"), "", resolve.Options{Opener: p.Opener})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	p.Reg.AddFaults(registrytest.Fail(http.MethodGet, "/broken/blobs/", http.StatusForbidden).Times(-1))
	storing := g.StartStore(context.Background(), p.Opener, transfer.Options{Concurrency: 1})
	err = storing.Stored(context.Background(), g.Order[1])
	_, storeErr := storing.Wait()
	if err == nil || storeErr == nil || err.Error() != storeErr.Error() {
		t.Errorf("Stored of a package after a failed one: %v; the store: %v; want the store's failure", err, storeErr)
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
	first, err := resolve.Resolve(context.Background(), packagetest.Declared(t, decls...), "", resolve.Options{Opener: p.Opener})
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
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, decls...), "", resolve.Options{Opener: p.Opener, Pins: pins, Concurrency: 2})
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
	g, err := resolve.Resolve(ctx, inRanges(t, ranges, decls...), "", resolve.Options{Opener: p.Opener, Concurrency: len(decls)})
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
	_, err = resolve.Resolve(context.Background(), inRanges(t, map[string]*semver.Range{decls[1]: caret2}, decls...), "", resolve.Options{Opener: p.Opener, Concurrency: 2})
	want := "resolve " + decls[1] + ": no tag of " + p.Reg.Host + "/old is a version in the range ^2.0.0: its tags are 1.0.0"
	if err == nil || !strings.HasPrefix(err.Error(), want) || errdefs.Of(err) != errdefs.Unresolved {
		t.Fatalf("error %v (%v), want it to start %q, unresolved", err, errdefs.Of(err), want)
	}
}

// With FetchLayers, a package's layer is fetched beside its config while
// the graph is resolved, not once it is stored: the two are asked for at
// once, and storing the graph then asks the registry for nothing.
func TestLayersAreFetchedWithTheirConfigs(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("solo:1", "solo")
	blobs := registrytest.Gate(http.MethodGet, "/solo/blobs/", 2)
	p.Reg.AddFaults(blobs)
	// A resolver that fetches the config alone is held until it gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, p.Reg.Host+"/solo:1"), "", resolve.Options{Opener: p.Opener, FetchLayers: fetchAll})
	if err != nil || !blobs.Released() {
		t.Fatalf("the config and the layer were not asked for at once: %v", err)
	}
	defer g.Close()
	p.Reg.ResetRequests()
	if _, err := g.Store(ctx, p.Opener, transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	if reqs := requestsOf(p.Reg); len(reqs) != 0 {
		t.Errorf("storing the graph made %d requests: %v", len(reqs), reqs)
	}
}

// A layer whose fetch ahead failed is fetched again when the graph is
// stored, and a failure then is the store's to report.
func TestALayerFetchedAheadThatFailedIsFetchedAgain(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("solo:1", "solo")
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, p.Reg.Host+"/solo:1"), "", resolve.Options{Opener: p.Opener})
	if err != nil {
		t.Fatal(err)
	}
	layer := g.Order[0].Package.Skills.Digest
	g.Close()
	p.Reg.ResetRequests()
	p.Reg.AddFaults(registrytest.Fail(http.MethodGet, "/blobs/"+layer.String(), http.StatusForbidden).Times(1))
	g = resolveAndStore(t, p, resolve.Options{FetchLayers: fetchAll}, p.Reg.Host+"/solo:1")
	if got := blobGets(p.Reg, layer); got != 2 {
		t.Errorf("the layer was fetched %d times, want twice: ahead, failing, then to store it", got)
	}
	if _, err := g.Order[0].Target.Resolve(context.Background(), g.Order[0].Digest.String()); err != nil {
		t.Errorf("the package was not stored: %v", err)
	}
}

// fetchAll fetches every layer ahead (see resolve.Options.FetchLayers).
func fetchAll(declaration.Declaration, digest.Digest) bool { return true }

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
		g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, decls...), "", resolve.Options{Opener: p.Opener, Concurrency: 8})
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
	_, err := resolve.Resolve(context.Background(), packagetest.Declared(t, proj), "", resolve.Options{Opener: p.Opener})
	want := filepath.Join(proj, "stax.yaml") + ":5: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "is a version in the range ^2.0.0") || errdefs.Of(err) != errdefs.Unresolved {
		t.Fatalf("error %v (%v), want it to start %q, unresolved", err, errdefs.Of(err), want)
	}
}
