package cache

import (
	"context"
	"errors"
	"io"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// FetchLayer fetches layer, read from src, into the local store while
// the graph is resolved (see resolve.Options.FetchLayers), unless the
// store holds it or its fetch was started already: nil then. It only
// saves work: a fetch that fails leaves nothing, and storing the graph
// fetches that layer again and reports its failure; but for bytes that do
// not match the layer's digest, which are reported as they are, without
// fetching the corrupt copy twice. The fetch ends when ctx is done, or a
// store of the graph is stopped (see StartStore), or p is closed; none is
// started after.
func (p *Packages) FetchLayer(ctx context.Context, src *target.Target, layer ocispec.Descriptor) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.started[layer.Digest]; ok || p.stopped.Err() != nil {
		return nil
	}
	done := make(chan struct{})
	p.started[layer.Digest] = done
	ctx, cancel := context.WithCancel(ctx)
	stopWith := context.AfterFunc(p.stopped, cancel)
	p.wg.Go(func() {
		defer close(done)
		defer stopWith()
		defer cancel()
		p.fetch(ctx, src, layer)
	})
	return done
}

// fetch stores layer, read from src, in the local store, unless the store
// holds it. The layer is asked for while the store is opened for writing,
// not after: on a first run, making the store (two files synced) took a
// round trip's time, which every layer waited for. A layer the store
// holds already is not asked for: it is looked for without the store's
// lock first; one another stax stored meanwhile is found under the lock,
// once asked for, and its response is closed unread. The bytes are
// checked against the layer's digest and size as they are written, once:
// by the verifying reader, which names the layer in a mismatch, and not
// again by the store (store.WriteBlob keeps the file only once the copy,
// and so the check, has succeeded).
func (p *Packages) fetch(ctx context.Context, src *target.Target, layer ocispec.Descriptor) {
	if store.Holds(p.opener.StoreDir, layer) {
		return
	}
	opened := make(chan error, 1)
	var local *target.Target
	go func() {
		var err error
		local, err = p.local(ctx)
		opened <- err
	}()
	rc, err := src.Fetch(ctx, layer)
	openErr := <-opened
	if err != nil {
		return
	}
	if openErr != nil {
		rc.Close()
		return
	}
	if held, err := local.Exists(ctx, layer); err != nil || held {
		rc.Close() // stored since by another stax
		return
	}
	rc = artifact.VerifyReader(rc, layer)
	if p.progress != nil {
		rc = p.progress.Track(layer, rc)
	}
	defer rc.Close()
	err = store.WriteBlob(local.LayoutDir(), func(w io.Writer) (digest.Digest, error) {
		_, err := io.Copy(w, rc)
		return layer.Digest, err
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err == nil:
		p.fetched[layer.Digest] = true
	case errors.Is(err, content.ErrMismatchedDigest):
		p.corrupt[layer.Digest] = src.Explain(err)
	}
}

// progressOf is opts with a progress that does not report the layers
// fetched ahead, which it showed being fetched, as blobs the store had.
func (p *Packages) progressOf(opts transfer.Options) transfer.Options {
	if opts.Progress != nil {
		opts.Progress = fetchedAhead{Progress: opts.Progress, ahead: p}
	}
	return opts
}

type fetchedAhead struct {
	transfer.Progress
	ahead *Packages
}

func (f fetchedAhead) Skipped(desc ocispec.Descriptor) {
	f.ahead.mu.Lock()
	fetched := f.ahead.fetched[desc.Digest]
	f.ahead.mu.Unlock()
	if !fetched {
		f.Progress.Skipped(desc)
	}
}

// waitAhead waits until the fetch of n's layer started ahead, if any, has
// ended; it is the error of a layer that did not match its digest.
func (p *Packages) waitAhead(ctx context.Context, n *resolve.Node) error {
	if n.Package.Skills == nil {
		return nil
	}
	p.mu.Lock()
	done := p.started[n.Package.Skills.Digest]
	p.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.corrupt[n.Package.Skills.Digest]
	case <-ctx.Done():
		return ctx.Err()
	}
}
