package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/workflow"
)

// updateProject installs, from p's registry, alpha in the range ^1.0.0,
// beta in ^1.0.0 and gamma:1.0.0 (which depends on dep:1.0.0), all at
// 1.0.0; then 1.1.0 of alpha, beta, gamma and dep, and 2.0.0 of alpha,
// are published. It returns the environment and the project.
func updateProject(t *testing.T, p *packagetest.Publisher) (*workflow.Env, string) {
	t.Helper()
	host := p.Reg.Host
	for _, name := range []string{"alpha", "beta", "dep"} {
		p.Publish("acme/"+name+":1.0.0", name+" 1.0.0")
	}
	p.Publish("acme/gamma:1.0.0", "gamma 1.0.0", host+"/acme/dep:1.0.0")
	env := homeEnv(t, t.TempDir())
	env.Opener.Registry = p.Opener.Registry
	proj := t.TempDir()
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "# the team's skills\ninstall:\n  sources:\n"+
		"    - {ref: "+host+"/acme/alpha, version: ^1.0.0}   # pinned by hand\n"+
		"    - {ref: "+host+"/acme/beta, version: ^1.0.0}\n"+
		"    - "+host+"/acme/gamma:1.0.0\n")
	if _, err := workflow.Install(context.Background(), env, workflow.InstallOptions{Where: claudeCode(proj)}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alpha", "beta", "dep", "gamma"} {
		p.Publish("acme/"+name+":1.1.0", name+" 1.1.0")
	}
	p.Publish("acme/alpha:2.0.0", "alpha 2.0.0")
	return env, proj
}

// Outdated lists each repository's tags once and compares them with the
// lock: a ranged source wants the highest in range, one naming a tag
// wants that tag, a dependency wants what its package recorded; Latest
// is the highest release. It changes no file.
func TestOutdatedComparesSourcesAndDependencies(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := updateProject(t, p)
	before := readProject(t, proj)
	p.Reg.ResetRequests()
	res, err := workflow.Outdated(context.Background(), env, workflow.OutdatedOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	p.Reg.WaitIdle()
	listed := map[string]int{}
	for _, r := range p.Reg.Requests() {
		if strings.HasSuffix(r.Path, "/tags/list") {
			listed[r.Path]++
		}
	}
	if len(listed) != 4 {
		t.Errorf("listed the tags of %v, want the 4 repositories", listed)
	}
	for path, n := range listed {
		if n != 1 {
			t.Errorf("listed %s %d times, want once", path, n)
		}
	}
	host := p.Reg.Host
	want := map[string]workflow.OutdatedPackage{
		host + "/acme/alpha": {Ref: host + "/acme/alpha", Range: "^1.0.0", Locked: "1.0.0", Wanted: "1.1.0", Latest: "2.0.0", Outdated: true},
		host + "/acme/beta":  {Ref: host + "/acme/beta", Range: "^1.0.0", Locked: "1.0.0", Wanted: "1.1.0", Latest: "1.1.0", Outdated: true},
		host + "/acme/gamma": {Ref: host + "/acme/gamma", Locked: "1.0.0", Wanted: "1.0.0", Latest: "1.1.0", Outdated: true},
		host + "/acme/dep":   {Ref: host + "/acme/dep", Locked: "1.0.0", Wanted: "1.0.0", Latest: "1.1.0", Dependency: true, Outdated: true},
	}
	if len(res.Packages) != len(want) {
		t.Errorf("Outdated lists %+v, want %d packages", res.Packages, len(want))
	}
	for _, got := range res.Packages {
		if got != want[got.Ref] {
			t.Errorf("Outdated %+v, want %+v", got, want[got.Ref])
		}
	}
	if !res.Outdated() {
		t.Error("Outdated() is false")
	}
	checkProject(t, "Outdated", proj, before)
}

// Update of one source moves it within its range and keeps the others at
// their locked digests, tags and versions; the plan names the package's
// versions and digests and the skills added and removed.
func TestUpdateOfOneSourceKeepsTheOthersLocked(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := updateProject(t, p)
	before := readLock(t, proj)
	host := p.Reg.Host
	alpha := host + "/acme/alpha"

	res, err := workflow.Update(context.Background(), env, workflow.UpdateOptions{InstallOptions: workflow.InstallOptions{Where: claudeCode(proj)}, Refs: []string{alpha}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 1 || res.Packages[0].Ref != alpha || res.Packages[0].OldVersion != "1.0.0" || res.Packages[0].NewVersion != "1.1.0" ||
		res.Packages[0].OldDigest != lockedOf(before, alpha).Digest || res.Packages[0].Change != workflow.ChangeUpdated {
		t.Errorf("planned packages %+v, want %s 1.0.0 → 1.1.0", res.Packages, alpha)
	}
	wantSkills := []workflow.SkillUpdate{
		{Path: "s-acme-alpha-1-0-0", Change: workflow.ChangeRemoved, Package: alpha},
		{Path: "s-acme-alpha-1-1-0", Change: workflow.ChangeAdded, Package: alpha},
	}
	if len(res.Skills) != 2 || res.Skills[0] != wantSkills[0] || res.Skills[1] != wantSkills[1] {
		t.Errorf("planned skills %+v, want %+v", res.Skills, wantSkills)
	}
	if res.Install == nil {
		t.Fatal("Update installed nothing")
	}
	after := readLock(t, proj)
	if got := lockedOf(after, alpha); got.Version != "1.1.0" || got.Range != "^1.0.0" || got.Digest != res.Packages[0].NewDigest {
		t.Errorf("locked %+v, want alpha 1.1.0 in ^1.0.0", got)
	}
	for _, kept := range []string{host + "/acme/beta", host + "/acme/gamma:1.0.0", host + "/acme/dep:1.0.0"} {
		if got, was := lockedOf(after, kept), lockedOf(before, kept); got.Digest != was.Digest || got.Tag != was.Tag || got.Version != was.Version || got.Range != was.Range {
			t.Errorf("%s locked %+v after updating alpha alone, want %+v", kept, got, was)
		}
	}
}

// A dry run with Latest plans the new range and the version it takes,
// and changes no file; a source that is not listed is refused.
func TestUpdateDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := updateProject(t, p)
	before := readProject(t, proj)
	stored := storeFiles(t, env.Opener.StoreDir)
	alpha := p.Reg.Host + "/acme/alpha"
	res, err := workflow.Update(context.Background(), env, workflow.UpdateOptions{
		InstallOptions: workflow.InstallOptions{Where: claudeCode(proj), DryRun: true}, Refs: []string{alpha}, Latest: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ranges) != 1 || res.Ranges[0] != (workflow.RangeUpdate{Ref: alpha, Old: "^1.0.0", New: "^2.0.0"}) {
		t.Errorf("planned ranges %+v, want %s ^1.0.0 → ^2.0.0", res.Ranges, alpha)
	}
	if len(res.Packages) != 1 || res.Packages[0].NewVersion != "2.0.0" || !res.DryRun || res.Install != nil {
		t.Errorf("dry run planned %+v (install %+v), want alpha to 2.0.0 and nothing installed", res.Packages, res.Install)
	}
	checkProject(t, "a dry run", proj, before)
	if got := storeFiles(t, env.Opener.StoreDir); got != stored {
		t.Errorf("a dry run changed the local store:\n%s\nwas\n%s", got, stored)
	}

	_, err = workflow.Update(context.Background(), env, workflow.UpdateOptions{InstallOptions: workflow.InstallOptions{Where: claudeCode(proj)}, Refs: []string{p.Reg.Host + "/acme/other"}})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(fmtErr(err), "not in install.sources") {
		t.Errorf("updating a source not listed: %v, want invalid", err)
	}
	checkProject(t, "a refused update", proj, before)
}

// storeFiles lists the files of the local store, with their sizes.
func storeFiles(t *testing.T, dir string) string {
	t.Helper()
	var list strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&list, "%s %d\n", path, info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return list.String()
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// readProject reads stax.yaml, stax.lock and the names in the skills
// folder.
func readProject(t *testing.T, proj string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, f := range []string{"stax.yaml", lock.FileName} {
		data, err := os.ReadFile(filepath.Join(proj, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(data)
	}
	entries, err := os.ReadDir(filepath.Join(proj, ".claude", "skills"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		files["skills"] += e.Name() + "\n"
	}
	return files
}

func checkProject(t *testing.T, what, proj string, before map[string]string) {
	t.Helper()
	for f, got := range readProject(t, proj) {
		if got != before[f] {
			t.Errorf("%s changed %s:\n%s", what, f, got)
		}
	}
}

func readLock(t *testing.T, proj string) *lock.Lock {
	t.Helper()
	l, err := lock.Read(filepath.Join(proj, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func lockedOf(l *lock.Lock, ref string) lock.Package {
	for _, p := range l.Packages {
		if p.Ref == ref {
			return p
		}
	}
	return lock.Package{}
}

// A tag pushed over is outdated (moved), and Update moves to its new
// digest, naming the same version on both sides.
func TestOutdatedAndUpdateFollowAMovedTag(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	env, proj := updateProject(t, p)
	gamma := p.Reg.Host + "/acme/gamma"
	was := lockedOf(readLock(t, proj), gamma+":1.0.0").Digest
	now := p.Publish("acme/gamma:1.0.0", "gamma 1.0.0, pushed over", p.Reg.Host+"/acme/dep:1.0.0")
	res, err := workflow.Outdated(context.Background(), env, workflow.OutdatedOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range res.Packages {
		if moved := got.Ref == gamma; got.Moved != moved || (moved && !got.Outdated) {
			t.Errorf("Outdated %+v: moved %v, want %v", got, got.Moved, moved)
		}
	}
	up, err := workflow.Update(context.Background(), env, workflow.UpdateOptions{InstallOptions: workflow.InstallOptions{Where: claudeCode(proj)}, Refs: []string{gamma}})
	if err != nil {
		t.Fatal(err)
	}
	want := workflow.PackageUpdate{Ref: gamma, Change: workflow.ChangeUpdated, OldVersion: "1.0.0", NewVersion: "1.0.0", OldDigest: was, NewDigest: now}
	if len(up.Packages) != 1 || up.Packages[0] != want {
		t.Errorf("planned %+v, want %+v", up.Packages, want)
	}
	if got := lockedOf(readLock(t, proj), gamma+":1.0.0").Digest; got != now {
		t.Errorf("locked %s after the update, want %s", got, now)
	}
}
