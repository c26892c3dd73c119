package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/workflow"
)

// pushSkillVersion pushes, as ref, a package whose one skill, name, says
// which version it is, so that each version has its own digest.
func pushSkillVersion(t *testing.T, ref, name, version string) workflow.Transfer {
	t.Helper()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"stax.yaml": "name: " + name + "-pkg\nversion: " + version + "\n",
		"skills/" + name + "/SKILL.md": "---\nname: " + name + "\ndescription: Says its version. Use when testing ranges.\nversion: 1.0.0\n---\nThis is " +
			name + " " + version + ".\n",
	})
	r := runStax(t, "push", dir, ref, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("push %s: exit %d\n%s", ref, r.Code, r.Stderr)
	}
	var out workflow.Transfer
	decodeJSON(t, r.Stdout, &out)
	return out
}

// rangeRepository is a repository holding 1.9.0, 1.10.0 and 2.0.0-rc.1
// of a package of the skill alpha, with v1.2.0 and latest tagged by
// another client: it returns the repository and the digest of each tag.
func rangeRepository(t *testing.T, reg *registrytest.Registry) (string, map[string]string) {
	t.Helper()
	repo := reg.Host + "/acme/alpha"
	digests := map[string]string{}
	for _, v := range []string{"1.9.0", "1.10.0", "2.0.0-rc.1"} {
		digests[v] = pushSkillVersion(t, repo+":"+v, "alpha", v).Digest
	}
	tagWithCrane(t, repo+":1.9.0", "v1.2.0")
	tagWithCrane(t, repo+":2.0.0-rc.1", "latest")
	return repo, digests
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stax add REF --version RANGE saves {ref, version} into install.sources
// of stax.yaml, keeping the rest of the file as it was, installs the
// highest version the range allows (1.10.0 above 1.9.0, never a
// pre-release unless the range names one) and locks what was asked, what
// it resolved to and the digest.
func TestAddWithARangeSavesAndInstallsTheHighestMatch(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo, digests := rangeRepository(t, reg)
	proj := t.TempDir()
	original := "# our skills\nname: app   # the app\n\ninstall:\n  runtimes: [claude-code]\n  sources:\n    # the base first\n    - ./base\n"
	filetest.Write(t, proj, map[string]string{
		"stax.yaml":          original,
		"base/base/SKILL.md": "---\nname: base\ndescription: The base skill. Use when testing ranges.\nversion: 1.0.0\n---\nBase.\n",
	})
	r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "saved install.sources in "+filepath.Join(proj, "stax.yaml")) {
		t.Errorf("add does not say it saved stax.yaml: %s", r.Stderr)
	}
	want := original + "    - {ref: " + repo + ", version: \"^1.0.0\"}\n"
	if got := readFile(t, filepath.Join(proj, "stax.yaml")); got != want {
		t.Errorf("stax.yaml after add:\n%s\nwant\n%s", got, want)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/alpha/SKILL.md")); !strings.Contains(got, "alpha 1.10.0") {
		t.Errorf("installed alpha is not 1.10.0:\n%s", got)
	}
	l, err := lock.Read(filepath.Join(proj, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, p := range l.Packages {
		if p.Ref == repo {
			found = true
			if p.Range != "^1.0.0" || p.Version != "1.10.0" || p.Tag != "1.10.0" || string(p.Digest) != digests["1.10.0"] {
				t.Errorf("locked %+v, want range ^1.0.0, version and tag 1.10.0, digest %s", p, digests["1.10.0"])
			}
		}
	}
	if !found {
		t.Errorf("stax.lock has no package %s: %+v", repo, l.Packages)
	}

	// A range naming a pre-release may pick one; the entry is replaced,
	// not added twice.
	if r := runStax(t, "add", repo, "--version", ">=2.0.0-rc.0", "--dir", proj); r.Code != 0 {
		t.Fatalf("add a pre-release range: exit %d\n%s", r.Code, r.Stderr)
	}
	want = original + "    - {ref: " + repo + ", version: \">=2.0.0-rc.0\"}\n"
	if got := readFile(t, filepath.Join(proj, "stax.yaml")); got != want {
		t.Errorf("stax.yaml after the second add:\n%s\nwant\n%s", got, want)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/alpha/SKILL.md")); !strings.Contains(got, "alpha 2.0.0-rc.1") {
		t.Errorf("installed alpha is not 2.0.0-rc.1:\n%s", got)
	}
}

// A range nothing matches exits 4 listing the tags seen; one that does
// not parse exits 1 (with the file and line when stax.yaml holds it). In
// both stax.yaml, stax.lock and the runtime folder stay as they were.
func TestRangeErrorsLeaveEverythingAsItWas(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo, _ := rangeRepository(t, reg)
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "~1.9.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	files := []string{"stax.yaml", lock.FileName, ".claude/skills/alpha/SKILL.md"}
	before := map[string]string{}
	for _, f := range files {
		before[f] = readFile(t, filepath.Join(proj, f))
	}
	unchanged := func(what string) {
		t.Helper()
		for _, f := range files {
			if got := readFile(t, filepath.Join(proj, f)); got != before[f] {
				t.Errorf("%s changed %s:\n%s", what, f, got)
			}
		}
	}

	r := runStax(t, "add", repo, "--version", "^3.0.0", "--dir", proj)
	if r.Code != 4 || !strings.Contains(r.Stderr, "^3.0.0") || !strings.Contains(r.Stderr, "1.10.0, 1.9.0, v1.2.0") {
		t.Errorf("a range with no match: exit %d, want 4 listing the tags\n%s", r.Code, r.Stderr)
	}
	unchanged("a range with no match")

	r = runStax(t, "add", repo, "--version", "^1.x.x.x", "--dir", proj)
	if r.Code != 1 || !strings.Contains(r.Stderr, `"^1.x.x.x"`) {
		t.Errorf("a range that does not parse: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
	unchanged("a range that does not parse")

	bad := strings.Replace(before["stax.yaml"], "~1.9.0", "~1.9.0.0", 1)
	filetest.Write(t, proj, map[string]string{"stax.yaml": bad})
	r = runStax(t, "install", "--dir", proj)
	if r.Code != 1 || !strings.Contains(r.Stderr, filepath.Join(proj, "stax.yaml")) || !strings.Contains(r.Stderr, "line 3") {
		t.Errorf("a bad range in stax.yaml: exit %d, want 1 naming the file and line 3\n%s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, "stax.yaml")); got != bad {
		t.Errorf("stax.yaml was rewritten:\n%s", got)
	}
}

// Two sources of one repository are refused before anything is fetched,
// naming both lines.
func TestTwoSourcesOfOneRepositoryAreRefused(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo, _ := rangeRepository(t, reg)
	proj := t.TempDir()
	body := "install:\n  runtimes: [claude-code]\n  sources:\n    - " + repo + ":1.9.0\n    - {ref: " + repo + ", version: ^1.0.0}\n"
	filetest.Write(t, proj, map[string]string{"stax.yaml": body})
	r := runStax(t, "install", "--dir", proj)
	if r.Code != 1 || !strings.Contains(r.Stderr, "lines 4 and 5") || !strings.Contains(r.Stderr, "acme/alpha") {
		t.Errorf("two sources of one repository: exit %d, want 1 naming lines 4 and 5\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(proj, lock.FileName)); !os.IsNotExist(err) {
		t.Errorf("a refused install wrote stax.lock (%v)", err)
	}
}

// install --frozen installs the locked digest of a ranged source without
// listing the repository's tags, even after a newer release matches.
func TestFrozenInstallNeverListsTags(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo, _ := rangeRepository(t, reg)
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	pushSkillVersion(t, repo+":1.11.0", "alpha", "1.11.0")
	os.RemoveAll(filepath.Join(proj, ".claude"))
	reg.ResetRequests()
	if r := runStax(t, "install", "--frozen", "--dir", proj); r.Code != 0 {
		t.Fatalf("install --frozen: exit %d\n%s", r.Code, r.Stderr)
	}
	reg.WaitIdle()
	for _, req := range reg.Requests() {
		if strings.HasSuffix(req.Path, "/tags/list") {
			t.Errorf("install --frozen listed tags: %s %s", req.Method, req.Path)
		}
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/alpha/SKILL.md")); !strings.Contains(got, "alpha 1.10.0") {
		t.Errorf("install --frozen did not install the locked 1.10.0:\n%s", got)
	}
	// A lock written for another range is not followed.
	yaml := readFile(t, filepath.Join(proj, "stax.yaml"))
	filetest.Write(t, proj, map[string]string{"stax.yaml": strings.Replace(yaml, "^1.0.0", "~1.9.0", 1)})
	if r := runStax(t, "install", "--frozen", "--dir", proj); r.Code != 4 || !strings.Contains(r.Stderr, `locked it for "^1.0.0"`) {
		t.Errorf("install --frozen with another range: exit %d, want 4\n%s", r.Code, r.Stderr)
	}
	filetest.Write(t, proj, map[string]string{"stax.yaml": yaml})
	// Without --frozen the lock is kept too; stax update moves the range
	// to the new release.
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/alpha/SKILL.md")); !strings.Contains(got, "alpha 1.10.0") {
		t.Errorf("install did not keep the locked 1.10.0:\n%s", got)
	}
	if r := runStax(t, "update", "--dir", proj); r.Code != 0 {
		t.Fatalf("update: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, ".claude/skills/alpha/SKILL.md")); !strings.Contains(got, "alpha 1.11.0") {
		t.Errorf("update did not move to 1.11.0:\n%s", got)
	}
}

// stax install REF saves REF as add does, so a second install keeps the
// first's skills; --no-save installs only what it names and touches
// neither stax.yaml nor stax.lock. stax remove drops one source and the
// skills only it supplied; a skill another source also supplies falls
// back to that one.
func TestInstallSavesAndRemoveDropsOneSource(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	alpha, _ := rangeRepository(t, reg)
	beta := reg.Host + "/acme/beta"
	pushSkillVersion(t, beta+":1.0.0", "beta", "1.0.0")
	// gamma supplies alpha too, below the alpha package.
	gamma := reg.Host + "/acme/gamma"
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"stax.yaml":             "name: gamma\nversion: 1.0.0\n",
		"skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Gamma's alpha. Use when testing ranges.\nversion: 1.0.0\n---\nThis is gamma's alpha.\n",
		"skills/gamma/SKILL.md": "---\nname: gamma\ndescription: Gamma. Use when testing ranges.\nversion: 1.0.0\n---\nGamma.\n",
	})
	if r := runStax(t, "push", dir, gamma+":1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	proj := t.TempDir()
	skills := filepath.Join(proj, ".claude/skills")
	for _, ref := range []string{gamma + ":1.0.0", alpha + ":1.9.0", beta + ":1.0.0"} {
		if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
			t.Fatalf("install %s: exit %d\n%s", ref, r.Code, r.Stderr)
		}
	}
	want := "install:\n    sources:\n        - " + gamma + ":1.0.0\n        - " + alpha + ":1.9.0\n        - " + beta + ":1.0.0\n"
	if got := readFile(t, filepath.Join(proj, "stax.yaml")); !strings.Contains(got, "- "+beta+":1.0.0\n") || strings.Count(got, "- ") != 3 {
		t.Errorf("stax.yaml after three installs:\n%s\nwant the three sources in order, like\n%s", got, want)
	}
	for _, s := range []string{"alpha", "beta", "gamma"} {
		if _, err := os.Stat(filepath.Join(skills, s)); err != nil {
			t.Errorf("skill %s is not installed after three installs: %v", s, err)
		}
	}
	if got := readFile(t, filepath.Join(skills, "alpha/SKILL.md")); !strings.Contains(got, "alpha 1.9.0") {
		t.Errorf("alpha is not the alpha package's:\n%s", got)
	}

	yamlBefore, lockBefore := readFile(t, filepath.Join(proj, "stax.yaml")), readFile(t, filepath.Join(proj, lock.FileName))
	other := t.TempDir()
	if r := runStax(t, "install", beta+":1.0.0", "--no-save", "--dir", other, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install --no-save: exit %d\n%s", r.Code, r.Stderr)
	}
	for _, f := range []string{"stax.yaml", lock.FileName} {
		if _, err := os.Stat(filepath.Join(other, f)); !os.IsNotExist(err) {
			t.Errorf("install --no-save wrote %s (%v)", f, err)
		}
	}

	// Removing a source that is not there changes nothing.
	if r := runStax(t, "remove", reg.Host+"/acme/nothing", "--dir", proj); r.Code != 1 || !strings.Contains(r.Stderr, "acme/nothing") {
		t.Errorf("remove of a source not listed: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
	if readFile(t, filepath.Join(proj, "stax.yaml")) != yamlBefore || readFile(t, filepath.Join(proj, lock.FileName)) != lockBefore {
		t.Errorf("a refused remove changed stax.yaml or stax.lock")
	}

	r := runStax(t, "remove", alpha, "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("remove: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(proj, "stax.yaml")); strings.Contains(got, alpha+":") || !strings.Contains(got, beta) || !strings.Contains(got, gamma) {
		t.Errorf("stax.yaml after remove:\n%s", got)
	}
	if got := readFile(t, filepath.Join(skills, "alpha/SKILL.md")); !strings.Contains(got, "gamma's alpha") {
		t.Errorf("alpha did not fall back to gamma's:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(skills, "beta")); err != nil {
		t.Errorf("remove took beta, which it did not supply: %v", err)
	}
	if got := readFile(t, filepath.Join(proj, lock.FileName)); strings.Contains(got, "acme/alpha") {
		t.Errorf("stax.lock still names the removed source:\n%s", got)
	}
}

// A stax.yaml stax cannot read (an unknown key) or cannot write is
// refused before anything is installed, and left as it was.
func TestAddRefusesAStaxYAMLItCannotSave(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo, _ := rangeRepository(t, reg)
	proj := t.TempDir()
	path := filepath.Join(proj, "stax.yaml")
	unknown := "# our skills\nname: app\nverison: 1.0.0 # a typo\n"
	filetest.Write(t, proj, map[string]string{"stax.yaml": unknown})
	r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 1 || !strings.Contains(r.Stderr, path) || !strings.Contains(r.Stderr, "line 3") || !strings.Contains(r.Stderr, "verison") {
		t.Errorf("add into a stax.yaml with an unknown key: exit %d, want 1 naming the file, line and key\n%s", r.Code, r.Stderr)
	}
	if readFile(t, path) != unknown {
		t.Errorf("the refused add changed stax.yaml")
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude")); !os.IsNotExist(err) {
		t.Errorf("the refused add installed (%v)", err)
	}

	if os.Geteuid() == 0 {
		t.Skip("root writes a read-only file")
	}
	readOnly := "name: app\n"
	filetest.Write(t, proj, map[string]string{"stax.yaml": readOnly})
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	r = runStax(t, "add", repo, "--dir", proj, "--runtime", "claude-code")
	if r.Code != 2 || !strings.Contains(r.Stderr, path) || !strings.Contains(r.Stderr, "--no-save") {
		t.Errorf("add into a read-only stax.yaml: exit %d, want 2 naming the file\n%s", r.Code, r.Stderr)
	}
	if readFile(t, path) != readOnly {
		t.Errorf("the refused add changed stax.yaml")
	}
	for _, f := range []string{".claude", lock.FileName} {
		if _, err := os.Stat(filepath.Join(proj, f)); !os.IsNotExist(err) {
			t.Errorf("the refused add wrote %s (%v)", f, err)
		}
	}
}
