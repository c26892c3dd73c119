package target

import (
	"context"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
)

// OpenBuilt has build write a package into a temporary layout, in a
// scratch directory named after name (see scratch.Dir), and opens it
// there for reading, at the manifest build returns: a package built from
// a directory is read as any other. Closing the target removes the
// layout; a build that fails leaves nothing.
func (o *Opener) OpenBuilt(ctx context.Context, name string, build func(content.Pusher) (ocispec.Descriptor, error)) (*Target, error) {
	s, release, err := store.OpenScratch(ctx, name)
	if err != nil {
		return nil, err
	}
	desc, err := build(s)
	if err != nil {
		release()
		return nil, err
	}
	t, err := o.Open(ctx, reference.Reference{Layout: s.Dir, Digest: desc.Digest}, store.ReadOnly)
	if err != nil {
		release()
		return nil, err
	}
	return WithCleanup(t, func() error { release(); return nil }), nil
}
