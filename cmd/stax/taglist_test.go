package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/workflow"
)

// runStaxWithin is runStax, cancelled after d: a command that hangs ends
// as interrupted, and the test that expected it to finish fails instead
// of hanging.
func runStaxWithin(t *testing.T, d time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out, errOut bytes.Buffer
	code := executeTest(t, ctx, args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// tagPage is a page of a tag list as a registry sends it.
func tagPage(t *testing.T, repo string, tags []string) []byte {
	t.Helper()
	body, err := json.Marshal(map[string]any{"name": repo, "tags": tags})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// A registry whose tag list links back to the page it serves would be
// listed forever; every command that lists tags stops at the page served
// again, with a registry error (exit 3) naming the registry, well within
// 30 s.
func TestTagListThatLoopsExitsThree(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/loop"
	pushExamples(t, repo+":1.0.0")
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	loop := registrytest.Rewrite(http.MethodGet, "^/v2/acme/loop/tags/list$", func(req *http.Request, _ int, header http.Header, body []byte) []byte {
		header.Set("Link", "<"+req.URL.RequestURI()+`>; rel="next"`)
		return body
	}).Times(-1)
	reg.AddFaults(loop)

	for _, args := range [][]string{
		{"tags", repo},
		{"add", repo, "--version", "^1.0.0", "--dir", t.TempDir(), "--runtime", "claude-code"},
		{"outdated", "--dir", proj},
		{"update", "--dir", proj},
		{"install", repo, "--dir", t.TempDir(), "--runtime", "claude-code"},
	} {
		before := loop.Hits()
		r := runStaxWithin(t, 30*time.Second, args...)
		if r.Code != 3 || !strings.Contains(r.Stderr, "in a loop") || !strings.Contains(r.Stderr, reg.Host) {
			t.Errorf("stax %s: exit %d, stderr %q; want exit 3 naming the registry and the loop", strings.Join(args, " "), r.Code, r.Stderr)
		}
		if n := loop.Hits() - before; n > 2 {
			t.Errorf("stax %s: %d tag list requests, want the page and its repetition", args[0], n)
		}
	}
}

// A registry that serves new pages without end is stopped at the bounds
// of the tag lists of one command — a million tags, 64 MiB of tag names,
// or 10,000 pages — exit 3, instead of growing the command's memory until
// it is killed; empty pages without end stop at the second in a row.
// Reaching a bound is the point of its case and its cost, about a second
// of CPU: those cases skip under -short (make unit), make test runs them.
func TestEndlessTagListIsBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		repo      string
		perPage   int
		pad       int // bytes added to each tag name
		want      string
		wantPages int64
		bound     bool // the case reaches one of the bounds
	}{
		{"acme/endless", 50_000, 0, fmt.Sprintf("more than %d tags", registry.MaxTags), registry.MaxTags/50_000 + 1, true},
		{"acme/long", 1, 4_000_000, fmt.Sprintf("more than %d MiB of tag names", registry.MaxTagBytes>>20), registry.MaxTagBytes/4_000_000 + 1, true},
		{"acme/paged", 1, 0, fmt.Sprintf("more than %d pages", registry.MaxTagPages), registry.MaxTagPages + 1, true},
		{"acme/empty", 0, 0, "empty pages", 2, false},
	} {
		t.Run(strings.TrimPrefix(tc.repo, "acme/"), func(t *testing.T) {
			t.Parallel()
			if tc.bound && testing.Short() {
				t.Skip("reaches a bound of the tag lists: make test runs it")
			}
			useHome(t)
			reg := registrytest.New(t)
			repo := reg.Host + "/" + tc.repo
			pushExamples(t, repo+":1.0.0")
			var page atomic.Int64
			reg.AddFaults(registrytest.Rewrite(http.MethodGet, "^/v2/"+tc.repo+"/tags/list$", func(_ *http.Request, _ int, header http.Header, _ []byte) []byte {
				n := page.Add(1)
				tags := make([]string, tc.perPage)
				for i := range tags {
					tags[i] = fmt.Sprintf("0.%d.%d", n, i) + strings.Repeat("x", tc.pad)
				}
				header.Set("Link", fmt.Sprintf(`</v2/%s/tags/list?last=0.%d.%d>; rel="next"`, tc.repo, n, tc.perPage))
				return tagPage(t, tc.repo, tags)
			}).Times(-1))

			// A deadline that fails only on a hang: 10,001 pages under the
			// race detector on a loaded machine take minutes.
			r := runStaxWithin(t, 5*time.Minute, "tags", repo)
			if r.Code != 3 || !strings.Contains(r.Stderr, tc.want) || !strings.Contains(r.Stderr, reg.Host) {
				t.Errorf("stax tags %s: exit %d, stderr %q; want exit 3 naming the registry, at %s", tc.repo, r.Code, r.Stderr, tc.want)
			}
			if page.Load() != tc.wantPages {
				t.Errorf("%s: %d pages served, want %d: listing stops at the page that crosses the bound", tc.repo, page.Load(), tc.wantPages)
			}
		})
	}
}

// The bounds hold for all the tag lists of one command, which a
// resolution keeps: two repositories of 600,000 tags each, each within the
// bound alone, are past it together, exit 3, where the command used to
// keep both lists and go on. Its point is the bound, and its cost 1.2
// million tags: it skips under -short (make unit), make test runs it.
func TestTagListsOfOneCommandShareTheBounds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("lists 1.2 million tags: make test runs it")
	}
	useHome(t)
	reg := registrytest.New(t)
	const pages, perPage = 12, 50_000
	for _, repo := range []string{"acme/a", "acme/b"} {
		pushExamples(t, reg.Host+"/"+repo+":1.0.0")
		reg.AddFaults(registrytest.Rewrite(http.MethodGet, "^/v2/"+repo+"/tags/list$", func(req *http.Request, _ int, header http.Header, body []byte) []byte {
			var n int
			fmt.Sscanf(req.URL.Query().Get("page"), "%d", &n)
			if n == pages {
				return body // the registry's own last page: 1.0.0
			}
			tags := make([]string, perPage)
			for i := range tags {
				tags[i] = fmt.Sprintf("0.%d.%d", n, i)
			}
			header.Set("Link", fmt.Sprintf(`</v2/%s/tags/list?page=%d>; rel="next"`, repo, n+1))
			return tagPage(t, repo, tags)
		}).Times(-1))
	}
	r := runStaxWithin(t, 60*time.Second, "install", reg.Host+"/acme/a", reg.Host+"/acme/b", "--dir", t.TempDir(), "--runtime", "claude-code")
	if r.Code != 3 || !strings.Contains(r.Stderr, fmt.Sprintf("more than %d tags", registry.MaxTags)) {
		t.Errorf("install of two repositories of %d tags: exit %d, stderr %.300q; want exit 3 past %d tags", pages*perPage, r.Code, r.Stderr, registry.MaxTags)
	}
}

// A registry whose Link leads back to the page it served under another
// URL (a counter in the query, or only a new fragment) serves the same
// tags again: the loop is told by what the page lists, not by its URL,
// and stops at the page served again, exit 3.
func TestTagListLoopUnderNewURLsExitsThree(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	for _, tc := range []struct{ repo, link string }{
		{"acme/query", `</v2/acme/query/tags/list?n=%d>; rel="next"`},
		{"acme/fragment", `</v2/acme/fragment/tags/list#%d>; rel="next"`},
	} {
		pushExamples(t, reg.Host+"/"+tc.repo+":1.0.0")
		var n atomic.Int64
		loop := registrytest.Rewrite(http.MethodGet, "^/v2/"+tc.repo+"/tags/list$", func(_ *http.Request, _ int, header http.Header, body []byte) []byte {
			header.Set("Link", fmt.Sprintf(tc.link, n.Add(1)))
			return body
		}).Times(-1)
		reg.AddFaults(loop)
		r := runStaxWithin(t, 30*time.Second, "tags", reg.Host+"/"+tc.repo)
		if r.Code != 3 || !strings.Contains(r.Stderr, "in a loop") || !strings.Contains(r.Stderr, `"1.0.0" again`) {
			t.Errorf("%s: exit %d, stderr %q; want exit 3 naming the tag listed again", tc.repo, r.Code, r.Stderr)
		}
		if hits := loop.Hits(); hits != 2 {
			t.Errorf("%s: %d tag list requests, want the page and its repetition", tc.repo, hits)
		}
	}
}

// linkPathsProxy is a registry in front of reg that serves reg's tag list
// of repo at any path below it too (a hostile registry chooses its
// URLs), with that path in the X-Link-Path header of the request reg
// sees. It returns the proxy's host.
func linkPathsProxy(t *testing.T, reg *registrytest.Registry, repo string) string {
	t.Helper()
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: reg.Host})
	director := proxy.Director
	proxy.Director = func(req *http.Request) {
		director(req)
		if list := "/v2/" + repo + "/tags/list"; strings.HasPrefix(req.URL.Path, list+"/") {
			req.Header.Set("X-Link-Path", req.URL.Path)
			req.URL.Path = list
		}
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// Every request of a tag list is a page of it, whatever path the
// registry's Link names: a Link to .../tags/list/1 is held to the same
// loop check and page size as .../tags/list.
func TestTagLinkToAnotherPathIsAPage(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	for _, tc := range []struct {
		repo string
		big  bool
		want string
	}{
		{"acme/loop", false, "in a loop"},
		{"acme/big", true, "over 4 MiB"},
	} {
		pushExamples(t, reg.Host+"/"+tc.repo+":1.0.0")
		host := linkPathsProxy(t, reg, tc.repo)
		var n atomic.Int64
		pages := registrytest.Rewrite(http.MethodGet, "^/v2/"+tc.repo+"/tags/list$", func(req *http.Request, _ int, header http.Header, body []byte) []byte {
			header.Set("Link", fmt.Sprintf(`</v2/%s/tags/list/%d>; rel="next"`, tc.repo, n.Add(1)))
			if !tc.big || req.Header.Get("X-Link-Path") == "" {
				return body
			}
			tags := make([]string, registry.MaxTagPageBytes/10)
			for i := range tags {
				tags[i] = fmt.Sprintf("2.0.%d", i)
			}
			return tagPage(t, tc.repo, tags)
		}).Times(-1)
		reg.AddFaults(pages)
		r := runStaxWithin(t, 30*time.Second, "tags", host+"/"+tc.repo)
		if r.Code != 3 || !strings.Contains(r.Stderr, tc.want) || !strings.Contains(r.Stderr, host) {
			t.Errorf("%s: exit %d, stderr %.300q; want exit 3 naming the registry, %s", tc.repo, r.Code, r.Stderr, tc.want)
		}
		if hits := pages.Hits(); hits != 2 {
			t.Errorf("%s: %d tag list requests, want 2", tc.repo, hits)
		}
	}
}

// A Link to another host is refused (oras-go follows a Link on the same
// origin only): exit 3, and not one request to the other host.
func TestTagLinkToAnotherHostIsRefused(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg, other := registrytest.New(t), registrytest.New(t)
	pushExamples(t, reg.Host+"/acme/x:1.0.0")
	pushExamples(t, other.Host+"/acme/x:2.0.0")
	reg.AddFaults(registrytest.Rewrite(http.MethodGet, "^/v2/acme/x/tags/list$", func(_ *http.Request, _ int, h http.Header, b []byte) []byte {
		h.Set("Link", "<http://"+other.Host+`/v2/acme/x/tags/list>; rel="next"`)
		return b
	}).Times(-1))
	other.ResetRequests()
	r := runStaxWithin(t, 30*time.Second, "tags", reg.Host+"/acme/x")
	if r.Code != 3 || len(other.Requests()) != 0 {
		t.Errorf("a Link to another host: exit %d, %d requests to it, stderr %q; want exit 3 and none", r.Code, len(other.Requests()), r.Stderr)
	}
}

// 100,000 tags over a hundred pages (and one), which real repositories reach, are
// listed whole.
func TestHundredThousandTagsAreListed(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/many"
	pushExamples(t, repo+":1.0.0")
	const pages, perPage = 101, 1000
	reg.AddFaults(registrytest.Rewrite(http.MethodGet, "^/v2/acme/many/tags/list$", func(req *http.Request, _ int, header http.Header, body []byte) []byte {
		var n int
		fmt.Sscanf(req.URL.Query().Get("page"), "%d", &n)
		if n == pages-1 {
			return body // the registry's own last page: 1.0.0
		}
		tags := make([]string, perPage)
		for i := range tags {
			tags[i] = fmt.Sprintf("0.%d.%d", n, i)
		}
		header.Set("Link", fmt.Sprintf(`</v2/acme/many/tags/list?page=%d>; rel="next"`, n+1))
		return tagPage(t, "acme/many", tags)
	}).Times(-1))

	r := runStaxWithin(t, 60*time.Second, "tags", repo, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("stax tags: exit %d\n%s", r.Code, r.Stderr)
	}
	var res workflow.TagsResult
	decodeJSON(t, r.Stdout, &res)
	if want := (pages-1)*perPage + 1; len(res.Tags) != want || res.Tags[0] != "1.0.0" {
		t.Errorf("stax tags listed %d tags, the first %q; want %d, 1.0.0 first", len(res.Tags), res.Tags[:1], want)
	}
}

// A page of tags larger than stax reads in one is the registry's fault,
// exit 3, not content altered on the way (exit 6).
func TestTagPageOverTheLimitIsARegistryError(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/big"
	pushExamples(t, repo+":1.0.0")
	reg.AddFaults(registrytest.Rewrite(http.MethodGet, "^/v2/acme/big/tags/list$", func(*http.Request, int, http.Header, []byte) []byte {
		tags := make([]string, registry.MaxTagPageBytes/10)
		for i := range tags {
			tags[i] = fmt.Sprintf("1.0.%d", i)
		}
		return tagPage(t, "acme/big", tags)
	}))

	r := runStaxWithin(t, 30*time.Second, "tags", repo)
	if r.Code != 3 || !strings.Contains(r.Stderr, "over 4 MiB") || !strings.Contains(r.Stderr, reg.Host) {
		t.Errorf("stax tags: exit %d, stderr %q; want exit 3 naming the registry and the page size", r.Code, r.Stderr)
	}
}
