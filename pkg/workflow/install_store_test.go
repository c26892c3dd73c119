package workflow_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
