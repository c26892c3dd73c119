package resolve

import (
	"context"
	"sync"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// layersAhead are the skills layers of the packages being resolved that
// Source is fetching as soon as their manifests are read (see
// Options.FetchLayers): a package's layer then comes with its config, in
// the same round trip, instead of once the whole graph is resolved. The
// fetches are bounded by the lookups that start them, each of which holds
// its slot until its layer is in (see prefetch); the graph stops them,
// and waits for them, before it closes the targets they read.
type layersAhead struct {
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	// fetches are the channels Source.FetchLayer returned.
	fetches []<-chan struct{}
}

func newLayersAhead(ctx context.Context) *layersAhead {
	ctx, cancel := context.WithCancel(ctx)
	return &layersAhead{ctx: ctx, cancel: cancel}
}

// fetchLayerAhead has Source start fetching the skills layer of the
// package l found for d (see layerAhead), and returns a channel closed
// once the fetch has ended; nil when there is none to fetch, FetchLayers
// does not admit it, or its fetch was started already.
func (r *resolver) fetchLayerAhead(l *looked, d declaration.Declaration) <-chan struct{} {
	a := r.graph.ahead
	if a == nil || !r.opts.FetchLayers(d, l.desc.Digest) {
		return nil
	}
	layer, ok := layerAhead(l, r.opts.MaxSize)
	if !ok {
		return nil
	}
	done := r.opts.Source.FetchLayer(a.ctx, l.t, layer)
	if done != nil {
		a.mu.Lock()
		a.fetches = append(a.fetches, done)
		a.mu.Unlock()
	}
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

// stop stops the fetches still under way and waits for them.
func (a *layersAhead) stop() {
	if a == nil {
		return
	}
	a.cancel()
	a.mu.Lock()
	fetches := a.fetches
	a.mu.Unlock()
	for _, done := range fetches {
		<-done
	}
}
