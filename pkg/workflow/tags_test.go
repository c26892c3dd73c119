package workflow_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/v1/random"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/workflow"
)

// Tags follows the registry's pages to the end: with two tags a page,
// seven tags take four requests, and none is lost or repeated.
func TestTagsFollowsPages(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/many"
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := crane.Push(img, repo+":latest", crane.Insecure); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"1.9.0", "1.10.0", "v1.2.0", "2.0.0-rc.1", "main", "sha256-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.sig"} {
		if err := crane.Tag(repo+":latest", tag, crane.Insecure); err != nil {
			t.Fatal(err)
		}
	}
	client, err := registry.New(registry.Options{TagListPageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, &bytes.Buffer{})
	env.Opener.Registry = client
	reg.ResetRequests()

	res, err := workflow.Tags(context.Background(), env, workflow.TagsOptions{Ref: repo + ":1.9.0"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2.0.0-rc.1", "1.10.0", "1.9.0", "v1.2.0", "latest", "main"}
	if res.Repository != repo || !slices.Equal(res.Tags, want) || res.Hidden != 1 {
		t.Errorf("Tags = %+v, want %s %q and 1 hidden", res, repo, want)
	}
	var pages int
	for _, r := range reg.Requests() {
		if r.Path == "/v2/acme/many/tags/list" {
			pages++
		}
	}
	if pages != 4 {
		t.Errorf("%d tag list requests, want 4 pages of at most 2", pages)
	}
}
