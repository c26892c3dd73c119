package workflow_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/workflow"
)

// An install extracts a package's layer as soon as it is stored, but
// commits nothing before every package is: when one whose skill is
// already in place fails to be stored, the skill of another that did
// change is not updated, and the failure is the store's.
func TestInstallCommitsNothingBeforeEveryPackageIsStored(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	a, b := p.Reg.Host+"/a:1", p.Reg.Host+"/b:1"
	p.Publish("a:1", "a one")
	p.Publish("b:1", "b one")
	env := homeEnv(t, t.TempDir())
	env.Opener.Registry = p.Opener.Registry
	proj := t.TempDir()
	if _, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{a, b}}); err != nil {
		t.Fatal(err)
	}
	g, err := resolve.Resolve(context.Background(), []string{b}, "", resolve.Options{Opener: p.Opener})
	if err != nil {
		t.Fatal(err)
	}
	layer := g.Order[0].Package.Skills.Digest
	g.Close()

	p.Publish("a:1", "a two")
	p.Reg.AddFaults(registrytest.Fail(http.MethodGet, "/b/blobs/"+layer.String(), http.StatusForbidden).Times(-1))
	env.Opener = &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: p.Opener.Registry} // b is fetched again
	_, err = workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{a, b}})
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), layer.String()) {
		t.Fatalf("err = %v, want the failure to store b", err)
	}
	data, err := os.ReadFile(filepath.Join(proj, ".claude", "skills", "s-a-1", "SKILL.md"))
	if err != nil || !strings.Contains(string(data), "a one") {
		t.Errorf("a's skill after a failed install: %q (%v), want it as it was", data, err)
	}
}

// An install that fails on its own while packages are still being stored
// stops storing them and reports its own failure at once: it does not wait
// for a layer it will not use, nor let that wait's end stand for it.
func TestInstallThatFailsStopsTheStore(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	a, b := p.Reg.Host+"/a:1", p.Reg.Host+"/b:1"
	p.Publish("a:1", "a one")
	p.Publish("b:1", "b one")
	env := homeEnv(t, t.TempDir())
	env.Opener.Registry = p.Opener.Registry
	proj := t.TempDir()
	if _, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{a, b}}); err != nil {
		t.Fatal(err)
	}
	// The user edits a's skill, which a new a:1 would replace: the install
	// must refuse, without --force.
	skill := filepath.Join(proj, ".claude", "skills", "s-a-1", "SKILL.md")
	if err := os.WriteFile(skill, []byte("---\nname: s-a-1\ndescription: Mine now. Use when testing.\n---\nmine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Publish("a:1", "a two")
	// b's layer is held until the client gives up: only a store that is
	// stopped lets the install end before the deadline.
	g, err := resolve.Resolve(context.Background(), []string{b}, "", resolve.Options{Opener: p.Opener})
	if err != nil {
		t.Fatal(err)
	}
	layer := g.Order[0].Package.Skills.Digest
	g.Close()
	p.Reg.AddFaults(registrytest.Gate(http.MethodGet, "/b/blobs/"+layer.String(), 2))
	env.Opener = &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: p.Opener.Registry}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = workflow.Install(ctx, env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{a, b}})
	if errdefs.Of(err) != errdefs.FailedPrecondition || ctx.Err() != nil {
		t.Fatalf("err = %v (%v), deadline %v; want the install's own refusal, before the deadline", err, errdefs.Of(err), ctx.Err())
	}
}
