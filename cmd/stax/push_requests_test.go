package main

import (
	"context"
	"github.com/stax-dev/stax/pkg/workflow"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// A first push of a package to an empty repository makes no more requests
// than oras-go copying the same package from an OCI layout, as `oras push`
// and `oras cp` do: a HEAD of the manifest and of each blob, a POST and a
// PUT to upload each blob, and a PUT of the manifest by tag. Both go to
// the same registry in the same run.
func TestFirstPushRequestsNoMoreThanOras(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	reg.ResetRequests()
	pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	staxRequests := reg.Requests()

	layout := filepath.Join(t.TempDir(), "layout")
	if r := runStax(t, "pack", examples, "-t", "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatalf("pack: exit %d %s", r.Code, r.Stderr)
	}
	store, err := oci.NewWithContext(context.Background(), layout)
	if err != nil {
		t.Fatal(err)
	}
	reg.ResetRequests()
	if _, err := oras.Copy(context.Background(), store, "1.0.0", testRepository(t, reg.Host+"/oras/skills"), "1.0.0", oras.DefaultCopyOptions); err != nil {
		t.Fatal(err)
	}
	orasRequests := reg.Requests()

	for name, requests := range map[string][]registrytest.Request{"stax push": staxRequests, "oras-go": orasRequests} {
		t.Logf("%s: %d requests", name, len(requests))
		for _, q := range requests {
			t.Logf("  %s %s -> %d", q.Method, q.Path, q.Status)
		}
	}
	if len(staxRequests) > len(orasRequests) {
		t.Errorf("a first push made %d requests, oras-go %d for the same package", len(staxRequests), len(orasRequests))
	}
}

// A package pushed by digest only, then by a tag the repository does not
// have yet, gets the tag: the manifest is PUT under it although it is
// there already, and no blob is uploaded again.
func TestPushNewTagOfAPackagePushedByDigest(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	repo := reg.Host + "/acme/skills"
	pushExamples(t, repo+"@"+goldenExamplesDigest)
	reg.ResetRequests()
	pushExamples(t, repo+":1.0.0")
	if n := reg.CountBlobUploads(); n != 0 {
		t.Errorf("the push by tag uploaded %d blobs again", n)
	}
	if r := runStax(t, "resolve", "--remote", repo+":1.0.0"); strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("resolve of the new tag: %q %s", r.Stdout, r.Stderr)
	}
}

// A push to a tag that names another package reads what the tag names, as
// the stateful-file rule needs, and moves the tag: only a tag that names
// the very package being pushed spares the reads.
func TestRepushOfAChangedPackageMovesTheTag(t *testing.T) {
	t.Parallel()
	for _, backend := range referrerRegistries {
		t.Run(backend.name, func(t *testing.T) {
			t.Parallel()
			reg := registrytest.New(t, backend.opts...)
			useHome(t)
			ref := reg.Host + "/acme/skills:1.0.0"
			first := pushExamples(t, ref)

			dir := copyExamples(t)
			skill := filepath.Join(dir, "skills", "review-pr", "SKILL.md")
			filetest.WriteFile(t, skill, readText(t, skill)+"\nLook at the tests first.\n")
			reg.ResetRequests()
			r := runStax(t, "push", dir, ref, "--output", "json")
			if r.Code != 0 {
				t.Fatalf("push of the changed package: exit %d %s", r.Code, r.Stderr)
			}
			var second workflow.Transfer
			decodeJSON(t, r.Stdout, &second)
			if second.Digest == first.Digest || second.Copied == 0 {
				t.Errorf("push of the changed package: %+v", second)
			}
			read := false
			for _, q := range reg.Requests() {
				if q.Method == http.MethodGet && strings.HasSuffix(q.Path, "/manifests/"+first.Digest) {
					read = true
				}
			}
			if !read {
				t.Errorf("the push did not read the package the tag named")
			}
			if r := runStax(t, "resolve", "--remote", ref); strings.TrimSpace(r.Stdout) != second.Digest {
				t.Errorf("the tag names %q, want %s", r.Stdout, second.Digest)
			}
		})
	}
}
