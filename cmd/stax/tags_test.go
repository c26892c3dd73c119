package main

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/workflow"
)

// tagWithCrane tags the manifest ref names with each of tags, through
// go-containerregistry: another client than stax, as a release pipeline
// would.
func tagWithCrane(t *testing.T, ref string, tags ...string) {
	t.Helper()
	for _, tag := range tags {
		if err := crane.Tag(ref, tag, crane.Insecure); err != nil {
			t.Fatalf("crane tag %s %s: %v", ref, tag, err)
		}
	}
}

// stax tags lists versions first, highest first (1.10.0 above 1.9.0, a
// leading v read as a version), then other tags; cosign's digest tags only
// with --all.
func TestTagsListsVersionsHighestFirst(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	repo := reg.Host + "/acme/org-skills"
	pushed := pushExamples(t, repo+":1.9.0")
	sig := "sha256-" + strings.TrimPrefix(pushed.Digest, "sha256:") + ".sig"
	tagWithCrane(t, repo+":1.9.0", "v1.2.0", "1.10.0", "2.0.0-rc.1", "latest", sig)

	r := runStax(t, "tags", repo)
	if want := "2.0.0-rc.1\n1.10.0\n1.9.0\nv1.2.0\nlatest\n"; r.Code != 0 || r.Stdout != want {
		t.Errorf("stax tags: exit %d, stdout\n%s\nwant\n%s\nstderr: %s", r.Code, r.Stdout, want, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "1 tag named after a digest hidden (--all lists them)") {
		t.Errorf("stax tags: stderr does not say a tag was hidden: %q", r.Stderr)
	}

	r = runStax(t, "tags", repo+":1.9.0", "--all", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("stax tags --all: exit %d\n%s", r.Code, r.Stderr)
	}
	var all workflow.TagsResult
	decodeJSON(t, r.Stdout, &all)
	want := []string{"2.0.0-rc.1", "1.10.0", "1.9.0", "v1.2.0", "latest", sig}
	if all.Repository != repo || !slices.Equal(all.Tags, want) || all.Hidden != 0 {
		t.Errorf("stax tags --all --output json = %+v, want %s %q", all, repo, want)
	}

	// The same tags, read from an OCI layout and from the local store.
	layout := filepath.Join(t.TempDir(), "layout")
	for _, tag := range []string{"1.10.0", "v1.2.0"} {
		if r := runStax(t, "copy", repo+":"+tag, "oci:"+layout); r.Code != 0 {
			t.Fatalf("copy %s: %s", tag, r.Stderr)
		}
		if r := runStax(t, "pull", repo+":"+tag); r.Code != 0 {
			t.Fatalf("pull %s: %s", tag, r.Stderr)
		}
	}
	for _, args := range [][]string{{"tags", "oci:" + layout}, {"tags", repo, "--local"}} {
		if r := runStax(t, args...); r.Code != 0 || r.Stdout != "1.10.0\nv1.2.0\n" {
			t.Errorf("%s: exit %d, stdout %q, want 1.10.0 and v1.2.0\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
		}
	}
}

// A repository nothing was pushed to has no tags; a registry that refuses
// to list them is a registry error (exit 3) that says so.
func TestTagsOfAnEmptyOrRefusingRepository(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	if r := runStax(t, "tags", reg.Host+"/acme/nothing"); r.Code != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "acme/nothing has no tags") {
		t.Errorf("tags of an empty repository: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	pushExamples(t, reg.Host+"/acme/private:1.0.0")
	reg.AddFaults(registrytest.Fail("GET", "^/v2/acme/private/tags/list$", http.StatusForbidden))
	r := runStax(t, "tags", reg.Host+"/acme/private", "--output", "json")
	if e := jsonErrorOf(t, r); r.Code != 3 || e.Code != "registry-denied" || !strings.Contains(e.Message, "acme/private") || !strings.Contains(e.Message, "list tags") {
		t.Errorf("tags refused: exit %d, error %+v; want exit 3 naming the repository", r.Code, e)
	}
}
