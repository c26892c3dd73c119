package workflow_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/workflow"
)

// gateDeadline bounds a run that waits at a registrytest.Gate: a client
// that never asks enough repositories at once fails by it. It is a
// failure, never a signal.
const gateDeadline = 30 * time.Second

// rangedProject publishes acme/r0 … acme/rN-1 at 1.0.0 on p's registry,
// and installs a project naming each in the range ^1.0.0. It returns the
// environment and the project.
func rangedProject(t *testing.T, p *packagetest.Publisher, n int) (*workflow.Env, string) {
	t.Helper()
	yaml := "install:\n  sources:\n"
	for i := range n {
		p.Publish(fmt.Sprintf("acme/r%d:1.0.0", i), fmt.Sprintf("r%d 1.0.0", i))
		yaml += fmt.Sprintf("    - {ref: %s/acme/r%d, version: ^1.0.0}\n", p.Reg.Host, i)
	}
	env := homeEnv(t, t.TempDir())
	env.Opener.Registry = p.Opener.Registry
	proj := t.TempDir()
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), yaml)
	if _, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj)}); err != nil {
		t.Fatal(err)
	}
	p.Reg.ResetRequests()
	return env, proj
}

// Outdated asks as many repositories at once as Env.Concurrency allows,
// and each carries on to its lookup without waiting for the others: the
// gates answer only once all six tag lists, then all six lookups of the
// locked tags, are in flight together.
func TestOutdatedAsksTheRepositoriesAtOnce(t *testing.T) {
	t.Parallel()
	const repos = 6
	p := packagetest.New(t)
	env, proj := rangedProject(t, p, repos)
	env.Concurrency = repos
	tagLists := registrytest.Gate(http.MethodGet, `^/v2/acme/r\d+/tags/list$`, repos)
	lookups := registrytest.Gate("", `^/v2/acme/r\d+/manifests/1\.0\.0$`, repos)
	p.Reg.AddFaults(tagLists, lookups)
	ctx, cancel := context.WithTimeout(context.Background(), gateDeadline)
	defer cancel()
	res, err := workflow.Outdated(ctx, env, workflow.OutdatedOptions{ProjectDir: proj})
	if err != nil {
		t.Fatalf("Outdated: %v (the registry answers once the %d repositories are asked at once)", err, repos)
	}
	if len(res.Packages) != repos || res.Outdated() {
		t.Errorf("Outdated %+v, want %d packages up to date", res.Packages, repos)
	}
	if tagLists.Hits() != repos || lookups.Hits() != repos {
		t.Errorf("%d tag lists and %d lookups, want %d of each", tagLists.Hits(), lookups.Hits(), repos)
	}
}

// Never more repositories at once than Env.Concurrency.
func TestOutdatedAsksNoMoreRepositoriesAtOnceThanItsConcurrency(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := rangedProject(t, p, 6)
	env.Concurrency = 2
	tagLists := registrytest.Gate(http.MethodGet, `/tags/list$`, 2)
	p.Reg.AddFaults(tagLists)
	ctx, cancel := context.WithTimeout(context.Background(), gateDeadline)
	defer cancel()
	if _, err := workflow.Outdated(ctx, env, workflow.OutdatedOptions{ProjectDir: proj}); err != nil {
		t.Fatal(err)
	}
	if got := tagLists.MaxInFlight(); got != 2 {
		t.Errorf("listed %d repositories at once, want 2", got)
	}
}

// The error reported is the one a run asking one repository after the
// other, in the order of the output, would report: the first package's,
// though its lookup fails after the second package's tag list did.
func TestOutdatedReportsTheFirstPackagesError(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := rangedProject(t, p, 2)
	p.Reg.AddFaults(
		registrytest.Fail(http.MethodHead, `^/v2/acme/r0/manifests/`, http.StatusForbidden).Times(-1),
		registrytest.Fail(http.MethodGet, `^/v2/acme/r1/tags/list$`, http.StatusForbidden).Times(-1),
	)
	_, err := workflow.Outdated(context.Background(), env, workflow.OutdatedOptions{ProjectDir: proj})
	if err == nil || !strings.Contains(err.Error(), "acme/r0") || strings.Contains(err.Error(), "acme/r1") {
		t.Errorf("Outdated: %v, want the error of acme/r0", err)
	}
}

// Update lists each repository's tags once, though --latest reads them
// to move the ranges and the resolution that follows to pick versions.
func TestUpdateListsEachRepositoryOnce(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := updateProject(t, p)
	p.Reg.ResetRequests()
	res, err := workflow.Update(context.Background(), env, workflow.UpdateOptions{
		InstallOptions: workflow.InstallOptions{Where: claudeCode(proj), DryRun: true}, Latest: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ranges) != 1 {
		t.Errorf("moved the ranges %+v, want alpha's", res.Ranges)
	}
	p.Reg.WaitIdle()
	listed := map[string]int{}
	for _, r := range p.Reg.Requests() {
		if strings.HasSuffix(r.Path, "/tags/list") {
			listed[strings.TrimSuffix(strings.TrimPrefix(r.Path, "/v2/"), "/tags/list")]++
		}
	}
	if want := map[string]int{"acme/alpha": 1, "acme/beta": 1}; fmt.Sprint(listed) != fmt.Sprint(want) {
		t.Errorf("listed the tags of %v, want %v", listed, want)
	}
}

// Update asks the repositories of its sources for their tags at once, up
// to Env.Concurrency: the gate answers only when all six are in flight.
func TestUpdateAsksTheRepositoriesAtOnce(t *testing.T) {
	t.Parallel()
	const repos = 6
	p := packagetest.New(t)
	env, proj := rangedProject(t, p, repos)
	env.Concurrency = repos
	p.Publish("acme/r3:1.1.0", "r3 1.1.0")
	tagLists := registrytest.Gate(http.MethodGet, `/tags/list$`, repos)
	p.Reg.AddFaults(tagLists)
	ctx, cancel := context.WithTimeout(context.Background(), gateDeadline)
	defer cancel()
	res, err := workflow.Update(ctx, env, workflow.UpdateOptions{InstallOptions: workflow.InstallOptions{Where: claudeCode(proj), DryRun: true}})
	if err != nil {
		t.Fatalf("Update: %v (the registry answers once the %d repositories are asked at once)", err, repos)
	}
	if len(res.Packages) != 1 || res.Packages[0].NewVersion != "1.1.0" {
		t.Errorf("planned %+v, want acme/r3 to 1.1.0", res.Packages)
	}
	if tagLists.Hits() != repos {
		t.Errorf("listed tags %d times, want once for each of the %d repositories", tagLists.Hits(), repos)
	}
}

// A source locked at the version its range still wants is looked up
// while its repository's tags are being listed, not after: with one
// repository at a time, the gate answers only when the tag list and the
// lookup of the locked tag are in flight together.
func TestOutdatedLooksUpTheLockedTagWhileListing(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := rangedProject(t, p, 2)
	env.Concurrency = 1
	both := registrytest.Gate("", `^/v2/acme/r\d/(tags/list|manifests/1\.0\.0)$`, 2)
	p.Reg.AddFaults(both)
	ctx, cancel := context.WithTimeout(context.Background(), gateDeadline)
	defer cancel()
	res, err := workflow.Outdated(ctx, env, workflow.OutdatedOptions{ProjectDir: proj})
	if err != nil {
		t.Fatalf("Outdated: %v (the registry answers once a tag list and a lookup are asked at once)", err)
	}
	if len(res.Packages) != 2 || res.Outdated() {
		t.Errorf("Outdated %+v, want 2 packages up to date", res.Packages)
	}
	if both.Hits() != 4 || both.MaxInFlight() != 2 {
		t.Errorf("%d requests, %d at once; want a tag list and a lookup for each repository, 2 at once", both.Hits(), both.MaxInFlight())
	}
}

// Outdated reads stax.yaml and stax.lock under the project's lock, as a
// command that writes them holds it, and so after it has recovered an
// install a crash interrupted between them: it waits for the holder
// (here the test, which lets go once told Outdated waits) rather than
// comparing a torn pair.
func TestOutdatedReadsUnderTheProjectsLock(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := rangedProject(t, p, 1)
	lockDir, err := store.LockDirFrom(env.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := install.LockProject(context.Background(), lockDir, proj, nil)
	if err != nil {
		t.Fatal(err)
	}
	release := sync.OnceFunc(unlock)
	defer release()
	waited := false
	env.Warnings = writerFunc(func(b []byte) {
		if strings.Contains(string(b), "waiting for another stax") {
			waited = true
			release()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), gateDeadline)
	defer cancel()
	if _, err := workflow.Outdated(ctx, env, workflow.OutdatedOptions{ProjectDir: proj}); err != nil {
		t.Fatal(err)
	}
	if !waited {
		t.Error("Outdated read the project while another stax held its lock")
	}
}

// writerFunc is an io.Writer calling its function with what is written.
type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }
