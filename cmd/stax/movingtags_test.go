package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/workflow"
)

// changedExamples is the example package with one skill changed, so that
// it builds to another digest.
func changedExamples(t *testing.T) string {
	t.Helper()
	dir := copyExamples(t)
	skill := filepath.Join(dir, "skills", "review-pr", "SKILL.md")
	filetest.WriteFile(t, skill, readText(t, skill)+"\nLook at the tests first.\n")
	return dir
}

// replacedOf is the "replaced" field of a push or copy's JSON result, and
// whether it is there at all.
func replacedOf(t *testing.T, stdout string) (string, bool) {
	t.Helper()
	var fields map[string]any
	if err := json.Unmarshal([]byte(stdout), &fields); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	v, ok := fields["replaced"]
	s, _ := v.(string)
	return s, ok
}

// A push over a tag that names another package says that the tag moved,
// from which digest to which, on stderr and in the JSON result; a push
// to a new tag, or of the package the tag names already, replaces
// nothing and says nothing of it.
func TestPushOverATagThatNamesAnotherPackageSaysItMoved(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	r := runStax(t, "push", examples, ref, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("first push: exit %d %s", r.Code, r.Stderr)
	}
	if _, ok := replacedOf(t, r.Stdout); ok {
		t.Errorf("a push to a new tag reports a replaced digest: %s", r.Stdout)
	}
	first := strings.TrimSpace(runStax(t, "resolve", "--remote", ref).Stdout)

	dir := changedExamples(t)
	r = runStax(t, "push", dir, ref)
	if r.Code != 0 {
		t.Fatalf("push of the changed package: exit %d %s", r.Code, r.Stderr)
	}
	second := strings.TrimSpace(runStax(t, "resolve", "--remote", ref).Stdout)
	if second == first {
		t.Fatalf("the tag did not move from %s", first)
	}
	if want := "tag 1.0.0 moved: " + first + " → " + second; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
	}

	r = runStax(t, "push", examples, ref, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("push back: exit %d %s", r.Code, r.Stderr)
	}
	if got, _ := replacedOf(t, r.Stdout); got != second {
		t.Errorf("replaced = %q, want %s", got, second)
	}

	r = runStax(t, "push", examples, ref)
	if r.Code != 0 || strings.Contains(r.Stderr, "moved") {
		t.Errorf("a re-push of the package the tag names: exit %d\n%s", r.Code, r.Stderr)
	}
}

// A stored package pushed over a tag (no build, so nothing has listed
// the destination's tags yet) says so too, to a registry and to an OCI
// layout alike.
func TestPushOfAStoredPackageOverAMovedTagSaysSo(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	src := filepath.Join(t.TempDir(), "src")
	for tag, dir := range map[string]string{"a": examples, "b": changedExamples(t)} {
		if r := runStax(t, "pack", dir, "-t", "oci:"+src+":"+tag); r.Code != 0 {
			t.Fatalf("pack %s: exit %d %s", tag, r.Code, r.Stderr)
		}
	}
	a := strings.TrimSpace(runStax(t, "resolve", "oci:"+src+":a").Stdout)
	b := strings.TrimSpace(runStax(t, "resolve", "oci:"+src+":b").Stdout)
	for _, dst := range []string{reg.Host + "/acme/skills:1.0.0", "oci:" + filepath.Join(t.TempDir(), "out") + ":1.0.0"} {
		if r := runStax(t, "push", "oci:"+src+":a", dst); r.Code != 0 {
			t.Fatalf("push a to %s: exit %d %s", dst, r.Code, r.Stderr)
		}
		r := runStax(t, "push", "oci:"+src+":b", dst, "--output", "json")
		if r.Code != 0 {
			t.Fatalf("push b to %s: exit %d %s", dst, r.Code, r.Stderr)
		}
		if got, _ := replacedOf(t, r.Stdout); got != a {
			t.Errorf("%s: replaced = %q, want %s", dst, got, a)
		}
		if r := runStax(t, "push", "oci:"+src+":a", dst); !strings.Contains(r.Stderr, "tag 1.0.0 moved: "+b+" → "+a) {
			t.Errorf("%s: push back: exit %d\n%s", dst, r.Code, r.Stderr)
		}
	}
}

// push --no-overwrite refuses a tag that names another package before
// any blob is uploaded, with exit 3, and leaves the tag where it was; a
// new tag, or the package the tag names already, goes through.
func TestPushNoOverwriteRefusesToMoveATag(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", "--no-overwrite", examples, ref); r.Code != 0 {
		t.Fatalf("push --no-overwrite to a new tag: exit %d %s", r.Code, r.Stderr)
	}
	first := strings.TrimSpace(runStax(t, "resolve", "--remote", ref).Stdout)
	if r := runStax(t, "push", "--no-overwrite", examples, ref); r.Code != 0 {
		t.Errorf("push --no-overwrite of the package the tag names: exit %d %s", r.Code, r.Stderr)
	}

	reg.ResetRequests()
	r := runStax(t, "push", "--no-overwrite", changedExamples(t), ref)
	if r.Code != 3 {
		t.Fatalf("push --no-overwrite over another package: exit %d, want 3\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{"1.0.0", first, "--no-overwrite"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the refusal does not name %q:\n%s", want, r.Stderr)
		}
	}
	for _, q := range reg.Requests() {
		if q.Method != http.MethodGet && q.Method != http.MethodHead {
			t.Errorf("the refused push wrote: %s %s", q.Method, q.Path)
		}
	}
	if got := strings.TrimSpace(runStax(t, "resolve", "--remote", ref).Stdout); got != first {
		t.Errorf("the tag moved to %s", got)
	}

	r = runStax(t, "push", "--no-overwrite", "--output", "json", changedExamples(t), ref)
	if code := jsonErrorOf(t, r).Code; code != "tag-exists" {
		t.Errorf("JSON error code %q, want tag-exists", code)
	}
}

// copy over a tag that names another package says so, and copy
// --no-overwrite refuses it with exit 3.
func TestCopyOverATagThatNamesAnotherPackage(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	a, b := reg.Host+"/acme/skills:a", reg.Host+"/acme/skills:b"
	pushExamples(t, a)
	if r := runStax(t, "push", changedExamples(t), b); r.Code != 0 {
		t.Fatalf("push b: exit %d %s", r.Code, r.Stderr)
	}
	da := strings.TrimSpace(runStax(t, "resolve", "--remote", a).Stdout)
	db := strings.TrimSpace(runStax(t, "resolve", "--remote", b).Stdout)
	dst := reg.Host + "/mirror/skills:1.0.0"
	if r := runStax(t, "copy", a, dst); r.Code != 0 || strings.Contains(r.Stderr, "moved") {
		t.Fatalf("copy a: exit %d %s", r.Code, r.Stderr)
	}
	r := runStax(t, "copy", "--no-overwrite", b, dst)
	if r.Code != 3 || !strings.Contains(r.Stderr, da) {
		t.Errorf("copy --no-overwrite over a: exit %d, want 3\n%s", r.Code, r.Stderr)
	}
	r = runStax(t, "copy", b, dst, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("copy b: exit %d %s", r.Code, r.Stderr)
	}
	if got, _ := replacedOf(t, r.Stdout); got != da {
		t.Errorf("replaced = %q, want %s", got, da)
	}
	if r := runStax(t, "copy", a, dst); !strings.Contains(r.Stderr, "tag 1.0.0 moved: "+db+" → "+da) {
		t.Errorf("copy a back: exit %d\n%s", r.Code, r.Stderr)
	}
}

// An install after the tag it follows moved names what it updated: per
// skill, the package, and its version and digest before and after, in
// the JSON result and on the text lines.
func TestInstallNamesWhatATagThatMovedUpdated(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/acme/skills:stable"
	first := pushExamples(t, ref)
	project := t.TempDir()
	if r := runStax(t, "install", ref, "--dir", project); r.Code != 0 {
		t.Fatalf("first install: exit %d %s", r.Code, r.Stderr)
	}

	dir := changedExamples(t)
	manifest := filepath.Join(dir, "stax.yaml")
	filetest.WriteFile(t, manifest, strings.Replace(readText(t, manifest), "version: 1.0.0", "version: 1.1.0", 1))
	r := runStax(t, "push", dir, ref, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("push 1.1.0: exit %d %s", r.Code, r.Stderr)
	}
	var second workflow.Transfer
	decodeJSON(t, r.Stdout, &second)

	r = runStax(t, "install", ref, "--dir", project, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("second install: exit %d %s", r.Code, r.Stderr)
	}
	var out workflow.InstallResult
	decodeJSON(t, r.Stdout, &out)
	if len(out.Targets) != 1 {
		t.Fatalf("targets: %+v", out.Targets)
	}
	want := []install.Update{{
		Skill: "review-pr",
		From:  install.PackageVersion{Package: reg.Host + "/acme/skills:stable", Version: "1.0.0", Digest: digest.Digest(first.Digest)},
		To:    install.PackageVersion{Package: reg.Host + "/acme/skills:stable", Version: "1.1.0", Digest: digest.Digest(second.Digest)},
	}}
	if got := out.Targets[0].Updates; !reflect.DeepEqual(got, want) {
		t.Errorf("updates:\n got %+v\nwant %+v", got, want)
	}

	// Back to the first package: the text names the skill, the package,
	// the versions and the digests.
	if r := runStax(t, "push", examples, ref); r.Code != 0 {
		t.Fatalf("push back: exit %d %s", r.Code, r.Stderr)
	}
	r = runStax(t, "install", ref, "--dir", project)
	if r.Code != 0 {
		t.Fatalf("third install: exit %d %s", r.Code, r.Stderr)
	}
	line := "updated review-pr: " + ref + " 1.1.0 → 1.0.0, " + second.Digest + " → " + first.Digest
	if !strings.Contains(r.Stdout, line) {
		t.Errorf("install output lacks %q:\n%s", line, r.Stdout)
	}
}

// push --push-dependencies holds the dependencies it pushes to the same
// rule: a moved tag is reported, and --no-overwrite refuses it before the
// package that depends on it is pushed.
func TestPushDependenciesOverAMovedTag(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	root := t.TempDir()
	dep := filepath.Join(root, "p41")
	filetest.WriteFile(t, filepath.Join(dep, "stax.yaml"), "name: p41\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(dep, "skills"), map[string]string{"base/SKILL.md": skillMD("base", "From p41.")})
	topRef, depRef := reg.Host+"/acme/top:1.0.0", reg.Host+"/acme/p41:1.0.0"
	top := filepath.Join(root, "top")
	filetest.WriteFile(t, filepath.Join(top, "stax.yaml"), "name: top\nversion: 1.0.0\npackages:\n  - path: ../p41\n    ref: "+depRef+"\n")
	writeSkillFiles(t, filepath.Join(top, "skills"), map[string]string{"top/SKILL.md": skillMD("top", "From top.")})
	if r := runStax(t, "push", top, topRef, "--push-dependencies", "--no-overwrite"); r.Code != 0 {
		t.Fatalf("first push: exit %d %s", r.Code, r.Stderr)
	}
	depBefore := strings.TrimSpace(runStax(t, "resolve", "--remote", depRef).Stdout)
	topBefore := strings.TrimSpace(runStax(t, "resolve", "--remote", topRef).Stdout)

	writeSkillFiles(t, filepath.Join(dep, "skills"), map[string]string{"base/SKILL.md": skillMD("base", "Edited.")})
	r := runStax(t, "push", top, topRef, "--push-dependencies", "--no-overwrite")
	if r.Code != 3 || !strings.Contains(r.Stderr, depBefore) {
		t.Errorf("--no-overwrite over the dependency's tag: exit %d, want 3\n%s", r.Code, r.Stderr)
	}
	if got := strings.TrimSpace(runStax(t, "resolve", "--remote", depRef).Stdout); got != depBefore {
		t.Errorf("the refused dependency's tag moved to %s", got)
	}
	if got := strings.TrimSpace(runStax(t, "resolve", "--remote", topRef).Stdout); got != topBefore {
		t.Errorf("the package was pushed after its dependency was refused: %s", got)
	}

	r = runStax(t, "push", top, topRef, "--push-dependencies")
	if r.Code != 0 {
		t.Fatalf("push: exit %d %s", r.Code, r.Stderr)
	}
	depAfter := strings.TrimSpace(runStax(t, "resolve", "--remote", depRef).Stdout)
	if want := "tag " + depRef + " moved: " + depBefore + " → " + depAfter; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
	}
}
