package source

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// maxSuggestions bounds the tags a not-found message lists.
const maxSuggestions = 5

// openLocalTag opens ref, a name without a registry host, in the local
// store. One the store does not have is an error that names the store's
// tags nearest to it, for the typing mistake it most likely is.
func openLocalTag(ctx context.Context, ref reference.Reference, arg string, opts Options) (*Source, error) {
	src, err := lookup(ctx, func() (*target.Target, error) { return opts.Opener.OpenLocal(ctx, ref, store.ReadOnly) }, arg, opts)
	if err == nil || errdefs.Of(err) != errdefs.InvalidArgument {
		return src, err
	}
	tags, terr := store.Tags(ctx, opts.Opener.StoreDir)
	if terr != nil {
		return nil, err
	}
	hint := "; write the registry's host (docker.io/library/NAME for Docker Hub) to read a registry"
	if near := nearest(tags, store.Key(ref)); len(near) > 0 {
		hint = fmt.Sprintf("; the nearest local tags are %s", strings.Join(near, ", ")) + hint
	}
	return nil, fmt.Errorf("%w%s", err, hint)
}

// nearest lists the tags closest to want, closest first: those that
// share its name or start as it does, then those within a few edits.
func nearest(tags []string, want string) []string {
	name, _, _ := strings.Cut(want, ":")
	type candidate struct {
		tag      string
		distance int
	}
	var found []candidate
	for _, tag := range tags {
		d := editDistance(tag, want)
		tagName, _, _ := strings.Cut(tag, ":")
		close := d <= max(2, len(want)/4) || tagName == name ||
			strings.HasPrefix(tag, name) || strings.HasPrefix(want, tagName)
		if close {
			found = append(found, candidate{tag, d})
		}
	}
	slices.SortStableFunc(found, func(a, b candidate) int { return a.distance - b.distance })
	out := make([]string, 0, min(len(found), maxSuggestions))
	for _, c := range found[:min(len(found), maxSuggestions)] {
		out = append(out, c.tag)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes:
// tags are ASCII.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
