package cache

import (
	"context"
	"errors"
	"io"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// ReadLayer reads n's skills layer, of a graph p resolved, for pull -o
// (whose install.Layer opens it): a registry package's layer goes into
// the local store while read consumes it, one pass over its bytes, and
// Store then finds it there rather than fetching it again. A layer the store holds already is read from it;
// any other, from its package's target.
func (p *Packages) ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error {
	if n.Target.Kind != target.KindRemote {
		return resolve.ReadLayer(ctx, n, n.Target, read)
	}
	local, err := p.local(ctx)
	if err != nil {
		return err
	}
	desc := *n.Package.Skills
	if ok, err := local.Exists(ctx, desc); err != nil {
		return local.Explain(err)
	} else if ok {
		// Named as the package it is, which a corrupt copy's message
		// says where to fetch again from.
		return resolve.ReadLayer(ctx, n, local.WithRef(n.Target.Ref), read)
	}
	rc, err := n.Target.Fetch(ctx, desc)
	if err != nil {
		return n.Target.Explain(err)
	}
	if p.progress != nil {
		rc = p.progress.Track(desc, rc)
	}
	defer rc.Close()
	var source *store.SourceError
	err = store.TeeBlob(local.LayoutDir(), desc, rc, read)
	if errors.As(err, &source) || errors.Is(err, content.ErrMismatchedDigest) {
		return n.Target.Explain(err) // the registry's, or the network's
	}
	return err
}
