package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// The bounds of one tag list. A registry pages its tags with a Link
// header that oras-go follows to the end, so a registry that never ends
// the list (a Link back to a page already served, or ever new pages)
// would hold a command forever and its memory without bound. The bounds
// are far above what real registries serve: a million tags, 10,000 pages
// (Quay serves 50 tags a page, Docker Hub 100, ECR 1,000), 64 MiB of
// tag names.
const (
	MaxTagPages = 10_000
	MaxTags     = 1_000_000
	MaxTagBytes = 64 << 20
	// MaxTagPageBytes is the size of one page, which oras-go caps at
	// the size of any metadata response.
	MaxTagPageBytes = 4 << 20
)

// ListTags calls fn with each page of the tags lister lists, within the
// bounds above: past them, or on a page a registry serves again, it
// stops with an error of the registry class. where names what is listed
// ("registry ghcr.io").
func ListTags(ctx context.Context, lister orasregistry.TagLister, where string, fn func([]string) error) error {
	var pages, tags, size int
	ctx = context.WithValue(ctx, tagListKey{}, &tagListing{seen: map[[sha256.Size]byte]bool{}})
	return lister.Tags(ctx, "", func(page []string) error {
		pages++
		tags += len(page)
		for _, tag := range page {
			size += len(tag)
		}
		switch {
		case pages > MaxTagPages:
			return tooManyTags(where, fmt.Sprintf("more than %d pages", MaxTagPages))
		case tags > MaxTags:
			return tooManyTags(where, fmt.Sprintf("more than %d tags", MaxTags))
		case size > MaxTagBytes:
			return tooManyTags(where, fmt.Sprintf("more than %d MiB of tag names", MaxTagBytes>>20))
		}
		return fn(page)
	})
}

func tooManyTags(where, what string) error {
	return errdefs.Remote(fmt.Errorf("%s lists %s for one repository, more than stax reads: it may be serving pages without end; stopped listing (report it to the registry's operator)", where, what))
}

// tagListKey is the context key of the tag list ListTags is reading.
type tagListKey struct{}

// tagListing is what the requests of one tag list have asked for: the
// digests of their URLs, which a registry may make as long as a header.
type tagListing struct {
	seen map[[sha256.Size]byte]bool
}

// tagPages is the client of a repository: it refuses a page of a tag
// list that ListTags already read, which only a Link header that leads
// back can ask for, and a page larger than oras-go reads whole, which
// oras-go would cut short and then fail to decode as if it had been
// altered on the way. It sits above the auth client, which sends a
// request again once it has a token, and the retries below it.
type tagPages struct {
	next remote.Client
}

func (c tagPages) Do(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, "/tags/list") {
		return c.next.Do(req)
	}
	if listing, ok := req.Context().Value(tagListKey{}).(*tagListing); ok {
		page := sha256.Sum256([]byte(req.URL.String()))
		if listing.seen[page] {
			return nil, errdefs.Remote(fmt.Errorf("registry %s serves the tag list in a loop: its Link header leads back to %s, a page already listed; stopped listing (report it to the registry's operator)", req.URL.Host, shortURL(req.URL)))
		}
		listing.seen[page] = true
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
		return nil, errdefs.Remote(fmt.Errorf("registry %s sent a page of tags over %d MiB, more than stax reads in one; stopped listing (report it to the registry's operator)", req.URL.Host, MaxTagPageBytes>>20))
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// maxURLShown is how much of a URL a registry chose a message shows.
const maxURLShown = 200

// shortURL is u quoted for a message, cut to maxURLShown bytes.
func shortURL(u *url.URL) string {
	s := u.String()
	if len(s) > maxURLShown {
		return strconv.Quote(s[:maxURLShown]) + "…"
	}
	return strconv.Quote(s)
}
