package resolve

import (
	"context"
	"errors"
	"io"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// ReadLayer calls read with n's skills layer as t holds it, and returns
// nil only when read did and the whole layer matched its descriptor:
// what read left unread is read to check it.
func ReadLayer(ctx context.Context, n *Node, t *target.Target, read func(io.Reader) error) error {
	rc, err := n.Package.OpenSkills(ctx, t)
	if err != nil {
		return t.Explain(err)
	}
	defer rc.Close()
	if err := read(rc); err != nil {
		if _, rerr := io.Copy(io.Discard, rc); errors.Is(rerr, content.ErrMismatchedDigest) {
			err = rerr // the bytes are to blame for whatever read made of them
		}
		if errors.Is(err, content.ErrMismatchedDigest) {
			return t.Explain(err)
		}
		return err
	}
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return t.Explain(err)
	}
	return nil
}

// StoreLayers reads the skills layers of a graph's packages as pull -o
// does: a registry package's layer goes into
// the local store while read consumes it, one pass over its bytes, and
// Graph.Store then finds it there rather than fetching it again. A layer
// the store holds already is read from it; any other, from its package's
// target.
type StoreLayers struct {
	Graph  *Graph
	Opener *target.Opener
	// Progress, when set, follows each layer fetched.
	Progress transfer.Progress
}

func (l StoreLayers) ReadLayer(ctx context.Context, n *Node, read func(io.Reader) error) error {
	if n.Target.Kind != target.KindRemote {
		return ReadLayer(ctx, n, n.Target, read)
	}
	local, err := l.Graph.local(ctx, l.Opener)
	if err != nil {
		return err
	}
	desc := *n.Package.Skills
	if ok, err := local.Exists(ctx, desc); err != nil {
		return local.Explain(err)
	} else if ok {
		return ReadLayer(ctx, n, local, read)
	}
	rc, err := n.Target.Fetch(ctx, desc)
	if err != nil {
		return n.Target.Explain(err)
	}
	if l.Progress != nil {
		rc = l.Progress.Track(desc, rc)
	}
	defer rc.Close()
	var source *store.SourceError
	err = store.TeeBlob(local.LayoutDir(), desc, rc, read)
	if errors.As(err, &source) || errors.Is(err, content.ErrMismatchedDigest) {
		return n.Target.Explain(err) // the registry's, or the network's
	}
	return err
}

// LockStore opens the local store for writing, as storing the graph
// does, when the graph has a registry's package to store: an install
// takes the store's lock before the folders' (see install.LockProject
// for the order), so that no stax holds a folder while it waits for the
// store, which another holds while it waits for that folder.
func (g *Graph) LockStore(ctx context.Context, opener *target.Opener) error {
	for _, n := range g.Order {
		if n.Target.Kind == target.KindRemote {
			_, err := g.local(ctx, opener)
			return err
		}
	}
	return nil
}

// local opens the local store for writing, once: the graph keeps it, and
// its lock, until closed. Layers read at once ask for it at once.
func (g *Graph) local(ctx context.Context, opener *target.Opener) (*target.Target, error) {
	g.storeMu.Lock()
	defer g.storeMu.Unlock()
	if g.store != nil {
		return g.store, nil
	}
	t, err := opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
	if err != nil {
		return nil, err
	}
	g.store = t
	return t, nil
}
