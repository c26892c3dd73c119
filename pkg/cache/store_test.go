package cache_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
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
	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	opts.Source = pkgs
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, decls...), "", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := pkgs.Store(context.Background(), g, transfer.Options{Concurrency: opts.Concurrency}); err != nil {
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
	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, decls...), "", resolve.Options{Source: pkgs, Concurrency: len(decls)})
	if err != nil || !manifests.Released() {
		t.Fatalf("the manifests were not asked for at once: %v", err)
	}
	defer g.Close()
	p.Reg.AddFaults(layers)
	if _, err := pkgs.Store(ctx, g, transfer.Options{Concurrency: len(decls)}); err != nil || !layers.Released() {
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

// A package is readable from the store as soon as it is stored, while
// another package's layer is still being fetched.
func TestAStoredPackageIsReadableBeforeTheOthersAre(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	p.Publish("first:1", "first")
	p.Publish("held:1", "held")
	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, p.Reg.Host+"/first:1", p.Reg.Host+"/held:1"), "", resolve.Options{Source: pkgs})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// Only the store asks for held's layer, once: the gate holds it until
	// the store is cancelled.
	p.Reg.AddFaults(registrytest.Gate(http.MethodGet, "/held/blobs/", 2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	storing := pkgs.StartStore(ctx, g, transfer.Options{Concurrency: 2})
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
	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, p.Reg.Host+"/broken:1", p.Reg.Host+"/after:1"), "", resolve.Options{Source: pkgs})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	p.Reg.AddFaults(registrytest.Fail(http.MethodGet, "/broken/blobs/", http.StatusForbidden).Times(-1))
	storing := pkgs.StartStore(context.Background(), g, transfer.Options{Concurrency: 1})
	err = storing.Stored(context.Background(), g.Order[1])
	_, storeErr := storing.Wait()
	if err == nil || storeErr == nil || err.Error() != storeErr.Error() {
		t.Errorf("Stored of a package after a failed one: %v; the store: %v; want the store's failure", err, storeErr)
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
	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, p.Reg.Host+"/solo:1"), "", resolve.Options{Source: pkgs, FetchLayers: fetchAll})
	if err != nil || !blobs.Released() {
		t.Fatalf("the config and the layer were not asked for at once: %v", err)
	}
	defer g.Close()
	p.Reg.ResetRequests()
	if _, err := pkgs.Store(ctx, g, transfer.Options{}); err != nil {
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
	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, p.Reg.Host+"/solo:1"), "", resolve.Options{Source: pkgs})
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

// blobGets counts the GET requests reg saw for the blob d.
func blobGets(reg *registrytest.Registry, d digest.Digest) int {
	n := 0
	for _, r := range reg.Requests() {
		if r.Method == "GET" && strings.HasSuffix(r.Path, "/blobs/"+d.String()) {
			n++
		}
	}
	return n
}

// manifestGets counts the GET requests reg saw for manifests.
func manifestGets(reg *registrytest.Registry) int {
	n := 0
	for _, r := range reg.Requests() {
		if r.Method == "GET" && strings.Contains(r.Path, "/manifests/") {
			n++
		}
	}
	return n
}

// readAll is a ReadLayer callback that keeps what it read.
func readAll(into *[]byte) func(io.Reader) error {
	return func(r io.Reader) error {
		b, err := io.ReadAll(r)
		*into = b
		return err
	}
}

// A resolved graph's registry packages go into the local store as
// resolved: their manifests and configs are not asked for again, a layer
// read through ReadLayer is fetched once, and once stored the graph
// reads everything from the store, with the registry gone.
func TestStoreKeepsWhatWasResolved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	p.Publish("base:1", "base")
	p.Publish("team:1", "team", p.Reg.Host+"/base:1")

	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, p.Reg.Host+"/team:1"), "", resolve.Options{Source: pkgs})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if len(g.Order) != 2 || g.Root.Name() != p.Reg.Host+"/team:1" {
		t.Fatalf("order %v, root %v", g.Order, g.Root)
	}
	if ref := g.Order[0].PackageRef(); ref.Digest != g.Order[0].Digest || ref.Kind != artifact.KindPackage || ref.Ref != p.Reg.Host+"/base:1" {
		t.Errorf("PackageRef of base = %+v", ref)
	}
	p.Reg.ResetRequests()

	layers := readLayers(t, pkgs, g)
	if got := manifestGets(p.Reg); got != 0 {
		t.Errorf("reading the layers asked for %d manifests", got)
	}
	for _, n := range g.Order {
		if got := blobGets(p.Reg, n.Package.Skills.Digest); got != 1 {
			t.Errorf("%s: its layer was fetched %d times, want once", n.Ref, got)
		}
	}

	results, err := pkgs.Store(ctx, g, transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Errorf("%d packages stored, want 2", len(results))
	}
	if got := manifestGets(p.Reg); got != 0 {
		t.Errorf("storing asked for %d manifests, want none: they were fetched while resolving", got)
	}
	for _, n := range g.Order {
		if got := blobGets(p.Reg, n.Package.Skills.Digest); got != 1 {
			t.Errorf("%s: its layer was fetched %d times in all, want once", n.Ref, got)
		}
		if n.Target.Kind != target.KindLocal {
			t.Errorf("%s is read from %v after Store, want the local store", n.Ref, n.Target.Kind)
		}
	}

	// The registry gone, the graph reads its layers from the store.
	p.Reg.Stop()
	again := readLayers(t, pkgs, g)
	for i := range layers {
		if !bytes.Equal(layers[i], again[i]) || len(layers[i]) == 0 {
			t.Errorf("layer %d read from the store differs from the one fetched", i)
		}
	}
}

// readLayers reads every layer of g, which pkgs resolved, through
// pkgs.ReadLayer.
func readLayers(t *testing.T, pkgs *cache.Packages, g *resolve.Graph) [][]byte {
	t.Helper()
	var out [][]byte
	for _, n := range g.Order {
		var b []byte
		if err := pkgs.ReadLayer(context.Background(), n, readAll(&b)); err != nil {
			t.Fatalf("%s: %v", n.Ref, err)
		}
		out = append(out, b)
	}
	return out
}

// A layer that does not match its digest fails ReadLayer as corrupt and
// is not kept in the store; a failing reader's error comes back as it is.
func TestReadLayerRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	p.Publish("base:1", "base")
	pkgs := cache.New(p.Opener, nil)
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, p.Reg.Host+"/base:1"), "", resolve.Options{Source: pkgs})
	if err != nil {
		t.Fatal(err)
	}
	n := g.Root
	layer := *n.Package.Skills

	stop := errors.New("the reader stops")
	err = pkgs.ReadLayer(ctx, n, func(io.Reader) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("a failing reader: %v, want its error", err)
	}

	fault := registrytest.CorruptBlob("base", layer.Digest)
	p.Reg.AddFaults(fault)
	var b []byte
	err = pkgs.ReadLayer(ctx, n, readAll(&b))
	if errdefs.Of(err) != errdefs.DataLoss || fault.Hits() != 1 {
		t.Errorf("a corrupt layer: %v (class %v, %d faults), want a data-loss error", err, errdefs.Of(err), fault.Hits())
	}
	// The packages hold the local store locked until they are closed.
	g.Close()
	pkgs.Close()
	local, err := p.Opener.OpenLocal(ctx, reference.Reference{}, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if ok, err := local.Exists(ctx, layer); ok || err != nil {
		t.Errorf("the corrupt layer was kept in the local store (%v)", err)
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

// A layer fetched ahead is read from the local store as soon as it is
// there, not once its package is stored: storing a package writes
// index.json twice, each write synced, behind those of the packages
// stored at the same time, and an install's extraction waited for all
// of that. Here index.json cannot be replaced, so storing the package
// fails; its layer is read all the same, and the failure is still the
// store's to report.
func TestALayerFetchedAheadIsReadBeforeItsPackageIsStored(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := packagetest.New(t)
	p.Publish("solo:1", "solo")
	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, p.Reg.Host+"/solo:1"), "", resolve.Options{Source: pkgs, FetchLayers: fetchAll})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := pkgs.LockStore(ctx, g); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(p.Opener.StoreDir, "index.json")
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(index, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}

	n := g.Root
	storing := pkgs.StartStore(ctx, g, transfer.Options{})
	if err := storing.LayerReady(ctx, n); err != nil {
		t.Errorf("the layer fetched ahead was not ready: %v", err)
	}
	var read int64
	err = storing.ReadLayer(ctx, n, func(r io.Reader) (err error) {
		read, err = io.Copy(io.Discard, r)
		return err
	})
	if err != nil || read != n.Package.Skills.Size {
		t.Errorf("read %d bytes of the layer (%v), want all %d before its package is stored", read, err, n.Package.Skills.Size)
	}
	if _, err := storing.Wait(); err == nil {
		t.Error("the package was stored though index.json could not be written")
	}
}
