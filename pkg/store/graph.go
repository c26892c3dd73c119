package store

import (
	"context"
	"errors"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
)

// predecessors maps what a store holds to the manifests that refer to it,
// as oras-go's layout store keeps them. oras-go reads every manifest the
// index lists to build it whenever a layout is opened, which costs a
// second per 15,000 tags on every command; the store builds it the first
// time it is asked for predecessors (to carry or list referrers), which
// most commands never are.
type predecessors struct {
	// of maps a node to the manifests that refer to it, by digest.
	of map[digest.Digest]map[digest.Digest]ocispec.Descriptor
	// successors maps each indexed manifest to what it refers to.
	successors map[digest.Digest][]digest.Digest
}

// buildPredecessors indexes roots, and what they refer to, as oras-go
// indexes the manifests of a layout's index.json: each by its plain
// descriptor; what the store does not hold is left out.
func buildPredecessors(ctx context.Context, fetcher content.Fetcher, roots []ocispec.Descriptor) (*predecessors, error) {
	g := &predecessors{of: map[digest.Digest]map[digest.Digest]ocispec.Descriptor{}, successors: map[digest.Digest][]digest.Digest{}}
	queue := roots
	for len(queue) > 0 {
		node := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if _, ok := g.successors[node.Digest]; ok {
			continue
		}
		next, err := g.index(ctx, fetcher, node)
		if errors.Is(err, errdef.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, d := range next {
			queue = append(queue, ocispec.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size})
		}
	}
	return g, nil
}

// index records node as a predecessor of what it refers to, which it
// returns.
func (g *predecessors) index(ctx context.Context, fetcher content.Fetcher, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	if node.Size > maxManifestSize {
		// A hostile layout's index may name a manifest of any size:
		// content.Successors would read it whole. No manifest stax
		// writes or reads is that large; it refers to nothing here.
		g.successors[node.Digest] = nil
		return nil, nil
	}
	next, err := content.Successors(ctx, fetcher, node)
	if err != nil {
		return nil, err
	}
	succ := make([]digest.Digest, 0, len(next))
	for _, d := range next {
		preds := g.of[d.Digest]
		if preds == nil {
			preds = map[digest.Digest]ocispec.Descriptor{}
			g.of[d.Digest] = preds
		}
		preds[node.Digest] = node
		succ = append(succ, d.Digest)
	}
	g.successors[node.Digest] = succ
	return next, nil
}

// list returns the manifests that refer to node.
func (g *predecessors) list(node ocispec.Descriptor) []ocispec.Descriptor {
	var out []ocispec.Descriptor
	for _, d := range g.of[node.Digest] {
		out = append(out, d)
	}
	return out
}

// remove forgets node as a predecessor.
func (g *predecessors) remove(node ocispec.Descriptor) {
	for _, d := range g.successors[node.Digest] {
		delete(g.of[d], node.Digest)
		if len(g.of[d]) == 0 {
			delete(g.of, d)
		}
	}
	delete(g.successors, node.Digest)
}
