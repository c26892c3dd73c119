package registry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// The bounds of the tag lists one command reads. A registry pages its
// tags with a Link header that oras-go follows to the end, so a registry
// that never ends the list would hold a command forever and its memory
// without bound; and a command that lists the tags of many repositories
// (a resolution with many untagged dependencies, all on one hostile
// registry) keeps them all. The bounds are far above what real
// registries serve: a million tags, 10,000 pages (Quay serves 50 tags a
// page, Docker Hub 100, ECR 1,000), 64 MiB of tag names.
const (
	MaxTagPages = 10_000
	MaxTags     = 1_000_000
	MaxTagBytes = 64 << 20
	// MaxTagPageBytes is the size of one page, which oras-go caps at
	// the size of any metadata response.
	MaxTagPageBytes = 4 << 20
)

// TagLimits are the bounds of a TagBudget.
type TagLimits struct {
	Pages, Tags, Bytes int
}

// DefaultTagLimits are the bounds above.
var DefaultTagLimits = TagLimits{Pages: MaxTagPages, Tags: MaxTags, Bytes: MaxTagBytes}

// TagBudget is what the tag lists of one command may still read, shared
// by all of them, which may be read at once.
type TagBudget struct {
	limits TagLimits

	mu                 sync.Mutex
	pages, tags, bytes int
}

// NewTagBudget returns a budget of limits.
func NewTagBudget(limits TagLimits) *TagBudget {
	return &TagBudget{limits: limits}
}

// spend takes a page of tags, of size bytes, from the budget; past its
// limits, it says which one the page crossed.
func (b *TagBudget) spend(tags, size int) (crossed string, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pages++
	b.tags += tags
	b.bytes += size
	switch {
	case b.pages > b.limits.Pages:
		return fmt.Sprintf("more than %d pages", b.limits.Pages), false
	case b.tags > b.limits.Tags:
		return fmt.Sprintf("more than %d tags", b.limits.Tags), false
	case b.bytes > b.limits.Bytes:
		return fmt.Sprintf("more than %d MiB of tag names", b.limits.Bytes>>20), false
	}
	return "", true
}

// ListTags calls fn with each page of the tags lister lists, taking them
// from budget (a budget of DefaultTagLimits for this list alone when
// nil). It stops with an error of the registry class past the budget, at
// a page that lists a tag again (a Link that leads back to a page
// already served, under whatever URL: a registry chooses its URLs and
// can make each new), and at a second empty page in a row, which is all
// a registry can serve without end once repeated tags are refused.
// where names what is listed ("registry ghcr.io").
func ListTags(ctx context.Context, lister orasregistry.TagLister, where string, budget *TagBudget, fn func([]string) error) error {
	if budget == nil {
		budget = NewTagBudget(DefaultTagLimits)
	}
	listed := map[string]struct{}{}
	empty := 0
	ctx = context.WithValue(ctx, tagListKey{}, where)
	return lister.Tags(ctx, "", func(page []string) error {
		size := 0
		for _, tag := range page {
			size += len(tag)
		}
		if crossed, ok := budget.spend(len(page), size); !ok {
			return errdefs.MarkUnavailable(fmt.Errorf("%s lists %s, more than stax reads in one command: it may be serving pages without end; stopped listing (report it to the registry's operator)", where, crossed))
		}
		empty++
		if len(page) > 0 {
			empty = 0
		}
		if empty > 1 {
			return tagLoop(where, "serves empty pages, one after another, without end")
		}
		for _, tag := range page {
			if _, ok := listed[tag]; ok {
				return tagLoop(where, "links to a page that lists "+quoteCut(tag)+" again, a tag already listed")
			}
			listed[tag] = struct{}{}
		}
		return fn(page)
	})
}

func tagLoop(where, what string) error {
	return errdefs.MarkUnavailable(fmt.Errorf("%s serves the tag list in a loop: it %s; stopped listing (report it to the registry's operator)", where, what))
}

// tagListKey is the context key of a tag list ListTags is reading; its
// value names where.
type tagListKey struct{}

// tagPages is the client of a repository: it refuses a page of a tag
// list larger than oras-go reads whole, which oras-go would cut short and
// then fail to decode as if it had been altered on the way. Every request
// made for ListTags is a page, whatever URL a registry's Link chose. It
// sits above the auth client, which sends a request again once it has a
// token, and the retries below it.
type tagPages struct {
	next remote.Client
}

func (c tagPages) Do(req *http.Request) (*http.Response, error) {
	where, ok := req.Context().Value(tagListKey{}).(string)
	if req.Method != http.MethodGet || !ok {
		return c.next.Do(req)
	}
	resp, err := c.next.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxTagPageBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxTagPageBytes {
		return nil, errdefs.MarkUnavailable(fmt.Errorf("%s sent a page of tags over %d MiB, more than stax reads in one; stopped listing (report it to the registry's operator)", where, MaxTagPageBytes>>20))
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// maxShown is how much of a string a registry chose a message shows.
const maxShown = 200

// quoteCut is s quoted for a message, cut to maxShown bytes.
func quoteCut(s string) string {
	if len(s) > maxShown {
		return strconv.Quote(s[:maxShown]) + "…"
	}
	return strconv.Quote(s)
}
