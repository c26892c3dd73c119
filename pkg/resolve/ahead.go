package resolve

import (
	"context"
	"errors"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// layersAhead fetches the skills layers of the packages being resolved
// into the local store as soon as their manifests are read (see
// Options.FetchLayers): a package's layer then comes with its config, in
// the same round trip, instead of once the whole graph is resolved. It
// only saves work: a fetch that fails leaves nothing, and storing the
// graph fetches that layer again and reports its failure; but for bytes
// that do not match the layer's digest, which are reported as they are,
// without fetching the corrupt copy twice. The fetches
// are bounded by the lookups that start them, each of which holds its
// slot until its layer is in (see prefetch).
type layersAhead struct {
	graph *Graph
	// admit is Options.FetchLayers.
	admit    func(d declaration.Declaration, manifest digest.Digest) bool
	opener   *target.Opener
	maxSize  int64
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	progress transfer.Progress
	// started holds, by digest, a channel closed once that layer's fetch
	// has ended; fetched the layers it stored.
	started map[digest.Digest]chan struct{}
	fetched map[digest.Digest]bool
	// corrupt holds, by digest, the explained error of a layer whose
	// bytes did not match it.
	corrupt map[digest.Digest]error
}

func newLayersAhead(ctx context.Context, g *Graph, opts Options) *layersAhead {
	ctx, cancel := context.WithCancel(ctx)
	return &layersAhead{graph: g, admit: opts.FetchLayers, opener: opts.Opener, maxSize: opts.MaxSize, ctx: ctx, cancel: cancel, progress: opts.Progress,
		started: map[digest.Digest]chan struct{}{}, fetched: map[digest.Digest]bool{}, corrupt: map[digest.Digest]error{}}
}

// start starts fetching the skills layer of the package l found for
// decl (see layerAhead), and returns a channel closed once the fetch has
// ended; nil when there is none to fetch, FetchLayers does not admit it,
// or its fetch was started already.
func (a *layersAhead) start(l *looked, d declaration.Declaration) <-chan struct{} {
	if a == nil || !a.admit(d, l.desc.Digest) {
		return nil
	}
	layer, ok := layerAhead(l, a.maxSize)
	if !ok {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.started[layer.Digest]; ok {
		return nil
	}
	done := make(chan struct{})
	a.started[layer.Digest] = done
	a.wg.Go(func() {
		defer close(done)
		a.fetch(l.t, layer)
	})
	return done
}

// layerAhead is the skills layer to fetch ahead of the package l found:
// none when l is not a registry's, its manifest was not held or is not a
// package's (see artifact.PeekManifest), names no single skills layer, or
// holds layers over the size limit maxSize means. Only a layer Check
// would let through is fetched.
func layerAhead(l *looked, maxSize int64) (ocispec.Descriptor, bool) {
	if l.t.Kind != target.KindRemote {
		return ocispec.Descriptor{}, false
	}
	manifest, ok := l.held.heldBytes(l.desc.Digest)
	if !ok {
		return ocispec.Descriptor{}, false
	}
	pkg, ok := artifact.PeekManifest(l.desc, manifest)
	if !ok || pkg.Skills == nil {
		return ocispec.Descriptor{}, false
	}
	if _, err := transfer.LayersSize(pkg.Manifest.Layers, maxSize); err != nil {
		return ocispec.Descriptor{}, false
	}
	return *pkg.Skills, true
}

// fetch stores layer, read from src, in the local store, unless the store
// holds it. The store checks the bytes against the layer's digest and size
// as it writes them.
func (a *layersAhead) fetch(src *target.Target, layer ocispec.Descriptor) {
	local, err := a.graph.local(a.ctx, a.opener)
	if err != nil {
		return
	}
	if held, err := local.Exists(a.ctx, layer); err != nil || held {
		return
	}
	rc, err := src.Fetch(a.ctx, layer)
	if err != nil {
		return
	}
	// Verified as it is read, so that a mismatch names the layer.
	rc = artifact.VerifyReader(rc, layer)
	if a.progress != nil {
		rc = a.progress.Track(layer, rc)
	}
	defer rc.Close()
	err = local.Push(a.ctx, layer, rc)
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case err == nil:
		a.fetched[layer.Digest] = true
	case errors.Is(err, content.ErrMismatchedDigest):
		a.corrupt[layer.Digest] = src.Explain(err)
	}
}

// progressOf is opts with a progress that does not report the layers
// fetched ahead, which it showed being fetched, as blobs the store had.
func (a *layersAhead) progressOf(opts transfer.Options) transfer.Options {
	if a != nil && opts.Progress != nil {
		opts.Progress = fetchedAhead{Progress: opts.Progress, ahead: a}
	}
	return opts
}

type fetchedAhead struct {
	transfer.Progress
	ahead *layersAhead
}

func (f fetchedAhead) Skipped(desc ocispec.Descriptor) {
	f.ahead.mu.Lock()
	fetched := f.ahead.fetched[desc.Digest]
	f.ahead.mu.Unlock()
	if !fetched {
		f.Progress.Skipped(desc)
	}
}

// wait waits until the fetch of n's layer started ahead, if any, has
// ended; it is the error of a layer that did not match its digest.
func (a *layersAhead) wait(ctx context.Context, n *Node) error {
	if a == nil || n.Package.Skills == nil {
		return nil
	}
	a.mu.Lock()
	done := a.started[n.Package.Skills.Digest]
	a.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.corrupt[n.Package.Skills.Digest]
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop stops the fetches still under way and waits for them.
func (a *layersAhead) stop() {
	if a == nil {
		return
	}
	a.cancel()
	a.wg.Wait()
}
