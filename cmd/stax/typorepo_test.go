package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/registry"
)

// catalogPage is a /v2/_catalog response listing repos.
func catalogPage(t *testing.T, repos []string) []byte {
	t.Helper()
	body, err := json.Marshal(map[string][]string{"repositories": repos})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// A repository typed with a typo is not found (exit 3, as before); where
// the registry lists its repositories (distribution's catalog), the
// message names the nearest, with the tag typed, for a tag and for a
// range alike. A repository nothing is near gets no suggestion.
func TestTypoRepositorySuggestsTheNearest(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	pushSkillVersion(t, reg.Host+"/acme/anthropic-skills:1.0.0", "alpha", "1.0.0")
	typo := reg.Host + "/acme/anthropic-skils"
	meant := reg.Host + "/acme/anthropic-skills"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"install", typo + ":1.0.0", "--dir", t.TempDir(), "--runtime", "claude-code"}, 3, "did you mean " + meant + ":1.0.0?"},
		{[]string{"pull", typo + ":1.0.0"}, 3, "did you mean " + meant + ":1.0.0?"},
		{[]string{"inspect", typo + ":1.0.0"}, 3, "did you mean " + meant + ":1.0.0?"},
		{[]string{"add", typo, "--version", "^1.0.0", "--dir", t.TempDir(), "--runtime", "claude-code"}, 4, "did you mean " + meant + "?"},
	} {
		r := runStax(t, tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) || !strings.Contains(r.Stderr, "has no repository acme/anthropic-skils") {
			t.Errorf("stax %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), r.Code, r.Stderr, tc.code, tc.want)
		}
	}
	r := runStax(t, "pull", reg.Host+"/other/unrelated:1.0.0")
	if r.Code != 3 || strings.Contains(r.Stderr, "did you mean") {
		t.Errorf("pull of a repository nothing is near: exit %d %q, want 3 and no suggestion", r.Code, r.Stderr)
	}
}

// The catalog is read for a hint only: a registry that refuses it (401,
// 403, 404, as GHCR and Docker Hub do) changes nothing of the not-found
// error; names it lists are printed escaped; and one that pages without
// end is read to its bounds, not forever, still exit 3.
func TestCatalogIsAHintOnly(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	pushSkillVersion(t, reg.Host+"/acme/anthropic-skills:1.0.0", "alpha", "1.0.0")
	typo := reg.Host + "/acme/anthropic-skils:1.0.0"

	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		refuse := registrytest.Fail(http.MethodGet, "^/v2/_catalog$", status).Times(-1)
		reg.AddFaults(refuse)
		r := runStax(t, "pull", typo)
		if r.Code != 3 || !strings.Contains(r.Stderr, "not found") || strings.Contains(r.Stderr, "did you mean") {
			t.Errorf("catalog refused with %d: exit %d %q, want 3, not found, no suggestion", status, r.Code, r.Stderr)
		}
		if refuse.Hits() == 0 {
			t.Errorf("catalog refused with %d: never asked", status)
		}
		refuse.Times(0)
	}

	hostile := registrytest.Rewrite(http.MethodGet, "^/v2/_catalog$", func(*http.Request, int, http.Header, []byte) []byte {
		return catalogPage(t, []string{"acme/anthropic-skil\x1bs"})
	}).Times(-1)
	reg.AddFaults(hostile)
	r := runStax(t, "pull", typo)
	if r.Code != 3 || !strings.Contains(r.Stderr, "did you mean") || strings.ContainsAny(r.Stderr, "\x1b") {
		t.Errorf("a name the catalog listed: exit %d %q, want 3 and it suggested, escaped", r.Code, r.Stderr)
	}
	hostile.Times(0)

	var pages atomic.Int64
	endless := registrytest.Rewrite(http.MethodGet, "^/v2/_catalog$", func(_ *http.Request, _ int, header http.Header, _ []byte) []byte {
		n := pages.Add(1)
		header.Set("Link", fmt.Sprintf(`</v2/_catalog?last=r%d>; rel="next"`, n))
		return catalogPage(t, []string{fmt.Sprintf("r%d", n)})
	}).Times(-1)
	reg.AddFaults(endless)
	r = runStaxWithin(t, 60*time.Second, "pull", typo)
	if r.Code != 3 || !strings.Contains(r.Stderr, "not found") {
		t.Errorf("endless catalog: exit %d %q, want 3, not found", r.Code, r.Stderr)
	}
	if n := pages.Load(); n != int64(registry.CatalogLimits.Pages)+1 {
		t.Errorf("endless catalog: %d pages read, want the bound, %d, and the one that crossed it", n, registry.CatalogLimits.Pages)
	}
}

// Where the registry refuses its catalog, or stax reads only the local
// store, the repositories of the registry the store holds packages of
// are what a typo is compared with.
func TestTypoRepositorySuggestsFromTheLocalStore(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/anthropic-skills:1.0.0"
	pushSkillVersion(t, ref, "alpha", "1.0.0")
	if r := runStax(t, "pull", ref); r.Code != 0 {
		t.Fatalf("pull: exit %d\n%s", r.Code, r.Stderr)
	}
	reg.AddFaults(registrytest.Fail(http.MethodGet, "^/v2/_catalog$", http.StatusUnauthorized).Times(-1))
	typo := reg.Host + "/acme/anthropic-skils:1.0.0"
	want := "did you mean " + ref + "? (the local store holds packages of it)"
	for _, args := range [][]string{{"pull", typo}, {"inspect", typo, "--offline"}} {
		r := runStax(t, args...)
		if r.Code == 0 || !strings.Contains(r.Stderr, want) {
			t.Errorf("stax %s: exit %d, stderr %q; want %q", strings.Join(args, " "), r.Code, r.Stderr, want)
		}
	}
}
