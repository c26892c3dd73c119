package workflow_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/workflow"
)

// storedTwice is a project that installed a:1 and b:1, with b's layer
// digest, and an env whose next install fetches them again into a store
// of its own.
type storedTwice struct {
	p     *packagetest.Publisher
	env   *workflow.Env
	proj  string
	a, b  string
	layer digest.Digest // b's
}

func installTwoPackages(t *testing.T) *storedTwice {
	t.Helper()
	p := packagetest.New(t)
	s := &storedTwice{p: p, proj: t.TempDir(), a: p.Reg.Host + "/a:1", b: p.Reg.Host + "/b:1"}
	p.Publish("a:1", "a one")
	p.Publish("b:1", "b one")
	s.env = homeEnv(t, t.TempDir())
	s.env.Opener.Registry = p.Opener.Registry
	if _, err := s.install(context.Background()); err != nil {
		t.Fatal(err)
	}
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, s.b), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	s.layer = g.Order[0].Package.Skills.Digest
	g.Close()
	s.env.Opener = &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: p.Opener.Registry}
	return s
}

func (s *storedTwice) install(ctx context.Context) (*workflow.InstallResult, error) {
	return workflow.Install(ctx, s.env, workflow.InstallOptions{Where: claudeCode(s.proj), Sources: []string{s.a, s.b}})
}

// An install extracts a package's layer as soon as the layer is in the
// local store, but commits nothing before every package is stored: when
// one whose skill is already in place fails to be stored, the skill of
// another that did change is not updated, and the failure is the store's.
func TestInstallCommitsNothingBeforeEveryPackageIsStored(t *testing.T) {
	t.Parallel()
	s := installTwoPackages(t)
	s.p.Publish("a:1", "a two")
	s.p.Reg.AddFaults(registrytest.Fail(http.MethodGet, "/b/blobs/"+s.layer.String(), http.StatusForbidden).Times(-1))
	_, err := s.install(context.Background())
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), s.layer.String()) {
		t.Fatalf("err = %v, want the failure to store b", err)
	}
	data, err := os.ReadFile(filepath.Join(s.proj, ".claude", "skills", "s-a-1", "SKILL.md"))
	if err != nil || !strings.Contains(string(data), "a one") {
		t.Errorf("a's skill after a failed install: %q (%v), want it as it was", data, err)
	}
}

// An install that fails on its own while packages are still being stored
// stops storing them and reports its own failure at once: it does not wait
// for a layer it will not use, nor let that wait's end stand for it. (It
// does wait for the local store's lock, which another process may hold:
// an install takes it before its folders', the lock order that keeps two
// installs from waiting on each other; see docs/architecture.md.)
func TestInstallThatFailsStopsTheStore(t *testing.T) {
	t.Parallel()
	holds := map[string]func(t *testing.T, s *storedTwice){
		// b's layer is held until the client gives up.
		"a layer held": func(t *testing.T, s *storedTwice) {
			s.p.Reg.AddFaults(registrytest.Gate(http.MethodGet, "/b/blobs/"+s.layer.String(), 2))
		},
	}
	for name, hold := range holds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := installTwoPackages(t)
			// The user edits a's skill, which a new a:1 would replace:
			// the install must refuse, without --force.
			skill := filepath.Join(s.proj, ".claude", "skills", "s-a-1", "SKILL.md")
			if err := os.WriteFile(skill, []byte("---\nname: s-a-1\ndescription: Mine now. Use when testing.\n---\nmine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s.p.Publish("a:1", "a two")
			hold(t, s)
			// Only a store that is stopped lets the install end before
			// the deadline.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := s.install(ctx)
			if errdefs.Of(err) != errdefs.FailedPrecondition || ctx.Err() != nil {
				t.Fatalf("err = %v (%v), deadline %v; want the install's own refusal, before the deadline", err, errdefs.Of(err), ctx.Err())
			}
		})
	}
}

// publishSolo publishes solo:1 to a registry of its own, and gives an env
// of a home of its own that reads from that registry.
func publishSolo(t *testing.T) (*packagetest.Publisher, *workflow.Env) {
	t.Helper()
	p := packagetest.New(t)
	p.Publish("solo:1", "solo")
	env := homeEnv(t, t.TempDir())
	env.Opener.Registry = p.Opener.Registry
	return p, env
}

// A cold install fetches each package's layer beside its config, while
// the packages are resolved: the two are asked for at once.
func TestInstallFetchesLayersWithTheirConfigs(t *testing.T) {
	t.Parallel()
	p, env := publishSolo(t)
	blobs := registrytest.Gate(http.MethodGet, "/solo/blobs/", 2)
	p.Reg.AddFaults(blobs)
	// An install that asks for the layer once the config is read is held
	// until it gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	proj := t.TempDir()
	_, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{p.Reg.Host + "/solo:1"}})
	if err != nil || !blobs.Released() {
		t.Fatalf("the config and the layer were not asked for at once: %v", err)
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude", "skills", "s-solo-1", "SKILL.md")); err != nil {
		t.Error(err)
	}
}

// An install that holds the local store while it fetches a layer, and
// then finds a declaration naming no tag of the store, lists the tags
// nearest to it without waiting for its own lock.
func TestInstallNamesTheNearestLocalTagWhileFetching(t *testing.T) {
	t.Parallel()
	p, env := publishSolo(t)
	proj := t.TempDir()
	if _, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{p.Reg.Host + "/solo:1"}}); err != nil {
		t.Fatal(err)
	}
	p.Publish("solo:1", "solo, moved")
	if _, err := workflow.Pack(context.Background(), env, workflow.PackOptions{Dir: writePackage(t, t.TempDir(), "solo", "x"), Tag: "solo:1"}); err != nil {
		t.Fatal(err)
	}
	// The layer is fetched, with the store locked, before the walk
	// reaches the mistyped tag: the two blobs are asked for at once.
	p.Reg.AddFaults(registrytest.Gate(http.MethodGet, "/solo/blobs/", 2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{p.Reg.Host + "/solo:1", "sol:1"}})
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "sol:1 is not in the local store") || !strings.Contains(err.Error(), "the nearest local tags are solo:1") {
		t.Fatalf("err = %v, want sol:1 named missing, and solo:1 nearest, before the deadline", err)
	}
}

// A layer pull -o cannot fetch is named with its package and digest, as
// one that fails while it is extracted: the failure says which layer of
// which package, and the directory is not written.
func TestPullOutputNamesTheLayerItCannotFetch(t *testing.T) {
	t.Parallel()
	p, env := publishSolo(t)
	ref := p.Reg.Host + "/solo:1"
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, ref), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	layer := g.Order[0].Package.Skills.Digest
	g.Close()
	p.Reg.AddFaults(registrytest.Fail(http.MethodGet, "/solo/blobs/"+layer.String(), http.StatusForbidden).Times(-1))
	dest := filepath.Join(t.TempDir(), "out")
	_, err = workflow.Pull(context.Background(), env, workflow.PullOptions{Refs: []string{ref}, OutputDir: dest})
	want := "extract " + ref + " (layer " + layer.String() + "): "
	if errdefs.Of(err) != errdefs.Unavailable || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v (%v), want it to start %q", err, errdefs.Of(err), want)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Errorf("%s after a failed pull: %v", dest, err)
	}
}

// An install staged in its folder whose store then fails leaves the
// project as it was: the skills, stax.yaml and stax.lock unchanged, and
// no staging directory beside the skills.
func TestInstallStagedThenUnstoredLeavesTheProjectAsItWas(t *testing.T) {
	t.Parallel()
	s := installTwoPackages(t)
	folder := filepath.Join(s.proj, ".claude", "skills")
	before := map[string]string{}
	for _, name := range []string{"stax.yaml", "stax.lock"} {
		data, err := os.ReadFile(filepath.Join(s.proj, name))
		if err != nil {
			t.Fatal(err)
		}
		before[name] = string(data)
	}
	s.p.Publish("a:1", "a two")
	s.p.Reg.AddFaults(registrytest.Fail(http.MethodGet, "/b/blobs/"+s.layer.String(), http.StatusForbidden).Times(-1))
	if _, err := s.install(context.Background()); errdefs.Of(err) != errdefs.Unavailable {
		t.Fatalf("err = %v, want the failure to store b", err)
	}
	for name, data := range before {
		if got, _ := os.ReadFile(filepath.Join(s.proj, name)); string(got) != data {
			t.Errorf("%s after a failed install:\n%s\nwant\n%s", name, got, data)
		}
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".stax-staging-") {
			t.Errorf("%s left in %s", e.Name(), folder)
		}
	}
	data, err := os.ReadFile(filepath.Join(folder, "s-a-1", "SKILL.md"))
	if err != nil || !strings.Contains(string(data), "a one") {
		t.Errorf("a's skill after a failed install: %q (%v), want it as it was", data, err)
	}
}
