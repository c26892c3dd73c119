package target_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// countTagLists counts the tag listings reg served.
func countTagLists(reg *registrytest.Registry) int {
	reg.WaitIdle()
	n := 0
	for _, r := range reg.Requests() {
		if strings.HasSuffix(r.Path, "/tags/list") {
			n++
		}
	}
	return n
}

// With a TagMemo, the targets of an opener list a repository's tags
// once, whether they ask one after the other or at once; a failed
// listing is not remembered, and the next asks again. Without one, each
// listing asks.
func TestTagMemoListsARepositoryOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	tgt, err := opener.Open(ctx, mustParse(t, reg.Host+"/acme/skills:1.0.0"), store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := tgt.TagAs(ctx, buildInto(t, tgt).Descriptor); err != nil {
		t.Fatal(err)
	}
	list := func(o *target.Opener, ref string) ([]string, error) {
		tgt, err := o.Open(ctx, mustParse(t, ref), store.ReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		defer tgt.Close()
		return tgt.Tags(ctx)
	}

	reg.ResetRequests()
	for range 2 {
		if _, err := list(opener, reg.Host+"/acme/skills"); err != nil {
			t.Fatal(err)
		}
	}
	if n := countTagLists(reg); n != 2 {
		t.Fatalf("without a memo: %d listings, want 2", n)
	}

	remembering := *opener
	remembering.TagMemo = target.NewTagMemo()
	reg.ResetRequests()
	var wg sync.WaitGroup
	for _, ref := range []string{"/acme/skills", "/acme/skills:1.0.0", "/acme/skills", "/acme/skills@sha256:" + strings.Repeat("0", 64)} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tags, err := list(&remembering, reg.Host+ref)
			if err != nil || len(tags) != 1 || tags[0] != "1.0.0" {
				t.Errorf("tags through %s: %v, %v; want [1.0.0]", ref, tags, err)
			}
			tags[0] = "changed by a caller" // each has its own copy
		}()
	}
	wg.Wait()
	if n := countTagLists(reg); n != 1 {
		t.Errorf("with a memo: %d listings, want 1", n)
	}

	remembering.TagMemo = target.NewTagMemo()
	reg.AddFaults(registrytest.Fail(http.MethodGet, `/tags/list$`, http.StatusForbidden))
	reg.ResetRequests()
	if _, err := list(&remembering, reg.Host+"/acme/skills"); err == nil {
		t.Fatal("a refused listing succeeded")
	}
	if tags, err := list(&remembering, reg.Host+"/acme/skills"); err != nil || len(tags) != 1 {
		t.Errorf("listing again after a failure: %v, %v; want [1.0.0]", tags, err)
	}
	if n := countTagLists(reg); n != 2 {
		t.Errorf("a failure then a listing: %d listings, want 2", n)
	}
}

// The listings of one memo, which it keeps, take their tags from one
// budget: each repository is within it, the tags of all of them are not,
// and the listing that crosses it fails with a registry error (exit 3)
// instead of growing the job's memory with each repository it lists.
func TestTagMemoListingsShareOneBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	opener := newOpener(t)
	for _, repo := range []string{"acme/a", "acme/b"} {
		for _, tag := range []string{"1.0.0", "1.0.1"} {
			tgt, err := opener.Open(ctx, mustParse(t, reg.Host+"/"+repo+":"+tag), store.ReadWrite)
			if err != nil {
				t.Fatal(err)
			}
			if err := tgt.TagAs(ctx, buildInto(t, tgt).Descriptor); err != nil {
				t.Fatal(err)
			}
			tgt.Close()
		}
	}
	remembering := *opener
	remembering.TagMemo = target.NewTagMemoWithin(registry.TagLimits{Pages: 10, Tags: 3, Bytes: 1 << 20})
	var errs []error
	for _, repo := range []string{"acme/a", "acme/b"} {
		tgt, err := remembering.Open(ctx, mustParse(t, reg.Host+"/"+repo), store.ReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tgt.Tags(ctx)
		tgt.Close()
		errs = append(errs, err)
	}
	if errs[0] != nil {
		t.Fatalf("two tags within a budget of three: %v", errs[0])
	}
	if err := errs[1]; errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), "more than 3 tags") {
		t.Errorf("four tags listed by one memo: %v (class %v); want a registry error past 3 tags", err, errdefs.Of(err))
	}
}
