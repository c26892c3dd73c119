package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/workflow"
)

// rangedRepository publishes 1.9.0, 1.10.0 and 2.0.0-rc.1 of acme/alpha
// (each with a skill named after its version), and tags v1.2.0 and
// latest with go-containerregistry, another client than stax.
func rangedRepository(t *testing.T, p *packagetest.Publisher) string {
	t.Helper()
	for _, v := range []string{"1.9.0", "1.10.0", "2.0.0-rc.1"} {
		p.Publish("acme/alpha:"+v, "alpha "+v)
	}
	repo := p.Reg.Host + "/acme/alpha"
	for tag, from := range map[string]string{"v1.2.0": "1.9.0", "latest": "2.0.0-rc.1"} {
		if err := crane.Tag(repo+":"+from, tag, crane.Insecure); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// An install with a range lists the repository's tags once, installs the
// highest release in range, saves {ref, version} and locks the range, the
// version, the tag and the digest; Remove drops the source and its skill.
func TestInstallWithARangeAndRemove(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	repo := rangedRepository(t, p)
	env := homeEnv(t, t.TempDir())
	env.Opener.Registry = p.Opener.Registry
	proj := t.TempDir()
	p.Reg.ResetRequests()
	res, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{repo}, Version: "^1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	p.Reg.WaitIdle()
	listed := 0
	for _, r := range p.Reg.Requests() {
		if strings.HasSuffix(r.Path, "/tags/list") {
			listed++
		}
	}
	if listed != 1 {
		t.Errorf("the install listed tags %d times, want once", listed)
	}
	if len(res.Skills) != 1 || res.Skills[0].Name != "s-acme-alpha-1-10-0" {
		t.Errorf("installed %+v, want the skill of 1.10.0", res.Skills)
	}
	data, err := os.ReadFile(filepath.Join(proj, "stax.yaml"))
	if want := "install:\n  sources:\n    - {ref: " + repo + ", version: \"^1.0.0\"}\n"; err != nil || string(data) != want {
		t.Errorf("stax.yaml = %q, %v; want %q", data, err, want)
	}
	l, err := lock.Read(filepath.Join(proj, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Packages) != 1 || l.Packages[0].Ref != repo || l.Packages[0].Range != "^1.0.0" || l.Packages[0].Version != "1.10.0" || l.Packages[0].Tag != "1.10.0" {
		t.Errorf("stax.lock packages %+v, want %s locked from ^1.0.0 at 1.10.0", l.Packages, repo)
	}

	// A leading v is read as a version: <1.5.0 is v1.2.0 (1.9.0's digest),
	// and the lock says both the tag and the version.
	res, err = workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj), Sources: []string{repo}, Version: "<1.5.0"})
	if err != nil {
		t.Fatal(err)
	}
	if l, err = lock.Read(filepath.Join(proj, lock.FileName)); err != nil || l.Packages[0].Tag != "v1.2.0" || l.Packages[0].Version != "1.2.0" || len(res.Skills) != 1 || res.Skills[0].Name != "s-acme-alpha-1-9-0" {
		t.Errorf("<1.5.0: locked %+v (%v), installed %+v; want v1.2.0, 1.9.0's skill", l.Packages, err, res.Skills)
	}

	res, err = workflow.Remove(context.Background(), env, workflow.RemoveOptions{InstallOptions: workflow.InstallOptions{Where: claudeCode(proj)}, Refs: []string{repo + ":9.9.9"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 0 || len(res.Targets[0].Removed) != 1 {
		t.Errorf("Remove left %+v, removed %v", res.Skills, res.Targets[0].Removed)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "stax.yaml")); strings.Contains(string(data), repo) {
		t.Errorf("stax.yaml still names %s:\n%s", repo, data)
	}
}

// A package built with a ranged dependency records the highest version in
// range, with the tag it resolved to and its digest.
func TestPublishResolvesADependencyRange(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	repo := rangedRepository(t, p)
	p.Publish("acme/app:1.0.0", "app", "{ref: "+repo+", version: \"~1.9.0 || ^1.10.0 <1.10.0\"}")
	g, err := p.Resolve(nil, "acme/app:1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	deps := g.Root.Package.Config.Packages
	if len(deps) != 1 || deps[0].Ref != repo+":1.9.0" {
		t.Fatalf("recorded dependencies %+v, want %s:1.9.0", deps, repo)
	}
	want, err := crane.Digest(repo+":1.9.0", crane.Insecure)
	if err != nil || deps[0].Digest.String() != want {
		t.Errorf("recorded digest %s, want 1.9.0's %s (%v)", deps[0].Digest, want, err)
	}
}
