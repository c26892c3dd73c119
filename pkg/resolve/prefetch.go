package resolve

import (
	"context"
	"strings"
	"sync"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// Resolving is a walk of the graph that makes every decision in one
// goroutine, in declaration order: precedence, conflicts, cycles and
// which error is reported are what a walk fetching one package after
// another gives. Only the fetching is done ahead of it: the registry
// references the walk is about to reach (the declarations, then each
// package's dependencies as soon as its config is read) are looked up
// and checked concurrently, at most Options.Concurrency at once, and the
// walk takes each result, or its error, from there when it reaches it.

// looked is what looking up and checking a registry reference gave. Its
// errors are unexplained: the walk names the path it reached them by.
type looked struct {
	t    *target.Target
	desc ocispec.Descriptor
	// openErr is the failure to open the repository, lookupErr to find
	// the manifest the reference names; checkErr the failure to read and
	// vet the package.
	openErr, lookupErr, checkErr error
	pkg                          *artifact.Package
	held                         *heldBlobs
	// local is set for a package of an oci: layout or the local store,
	// read from there rather than held.
	local bool
	// checked is set once the package was checked (or failed to be).
	checked bool
}

// lookUp opens ref on its registry (or the mirror, see lookUpMirrored) and
// finds the manifest it names, fetching it in the same request. A
// reference pinned by digest is read from the local store when it holds
// the package. selectTag, when set, picks the tag first (see
// selectInRange).
func (r *resolver) lookUp(ctx context.Context, ref reference.Reference, mirror string, selectTag func(*target.Target) error) *looked {
	if l := r.lookUpMirrored(ctx, mirror, ref); l != nil {
		return l
	}
	l := &looked{}
	if ref.Digest != "" {
		l.t, l.openErr = r.opts.Source.OpenPinned(ctx, ref)
	} else {
		l.t, l.openErr = r.opts.Source.Open(ctx, ref)
	}
	if l.openErr != nil {
		return l
	}
	r.opened(l.t)
	if selectTag != nil {
		if l.lookupErr = selectTag(l.t); l.lookupErr != nil {
			return l
		}
	}
	l.held = holdBlobs(l.t.GraphTarget)
	desc, manifest, err := l.t.LookupManifest(ctx)
	if err != nil {
		l.lookupErr = err
		return l
	}
	l.desc = desc
	if manifest != nil {
		l.held.hold(desc, manifest)
	}
	return l
}

// check reads and vets the package l found, unless that was done.
func (r *resolver) check(ctx context.Context, l *looked) {
	if l.checked {
		return
	}
	l.checked = true
	checked := l.t.WithRef(l.t.Ref)
	checked.GraphTarget = l.held
	l.pkg, l.checkErr = transfer.Check(ctx, checked, l.desc, r.opts.MaxSize)
	l.held.stopRecording()
	if l.checkErr == nil {
		l.checkErr = recordLayerSkills(ctx, l.t, l.pkg, r.opts.Limits)
	}
}

// prefetcher runs lookUp and check ahead of the walk.
type prefetcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	// ahead holds the lookups started, by prefetchKey.
	ahead map[string]*pending
	// targets are those the lookups opened, which the graph closes.
	targets []*target.Target
}

// pending is a lookup under way.
type pending struct {
	done chan struct{}
	l    *looked
}

func newPrefetcher(ctx context.Context, concurrency int) *prefetcher {
	if concurrency <= 0 {
		concurrency = transfer.DefaultConcurrency
	}
	ctx, cancel := context.WithCancel(ctx)
	return &prefetcher{ctx: ctx, cancel: cancel, slots: make(chan struct{}, concurrency), ahead: map[string]*pending{}}
}

// prefetchKey names a lookup by what it fetches: the reference in full,
// pinned as the walk pins it, the range its tag is picked in (nil when it
// is not), and the registry of the package that declared it when that is
// another registry (see lookUpMirrored), so that a declaration, a
// dependency and a lock's pin of the same package are one lookup, and a
// declaration in a range is not mistaken for the same reference without.
func prefetchKey(ref reference.Reference, rng *semver.Range, mirror string) string {
	if mirror == ref.Registry {
		mirror = ""
	}
	key := ref.String() + "\x00" + mirror
	if rng != nil {
		key += "\x00" + rng.String()
	}
	return key
}

// inRange is the range the lookup of decl, at depth, picks its tag in:
// a declaration's own range when the lock does not pin it. A dependency
// equal to a declaration in a range is looked up by the walk in that
// range (see fetch), which names the dependency's path in its errors.
func (r *resolver) inRange(d declaration.Declaration, ref reference.Reference, depth int) (rng *semver.Range, ahead bool) {
	rng = r.rangeOf(d.Written)
	if rng == nil || ref.Digest != "" {
		return nil, true
	}
	return rng, depth == 1
}

// pinned is the reference of d, a registry declaration, pinned to the
// digest the lock gives its key, as the walk does (see fetch).
func (r *resolver) pinned(d declaration.Declaration) (reference.Reference, bool) {
	if d.Kind != declaration.Registry {
		return reference.Reference{}, false
	}
	ref := d.Ref
	if ref.Digest == "" {
		key, _, _, err := r.identify(d, "")
		if err != nil {
			return reference.Reference{}, false
		}
		ref.Digest = r.opts.Pins[key]
	}
	return ref, true
}

// prefetchPins starts looking up every registry package the lock pins that
// is on the registry of a declaration: the dependencies of a locked
// install are known up front, and need not wait for their dependents'
// configs. A pin elsewhere may be read from a mirror (see lookUpMirrored),
// which only its dependent knows, so it waits for the walk.
func (r *resolver) prefetchPins(decls []declaration.Declaration) {
	registries := map[string]bool{}
	for _, d := range decls {
		if d.IsRemote() {
			registries[d.Ref.Registry] = true
		}
	}
	for key, dgst := range r.opts.Pins {
		written := key
		if !strings.Contains(key, "@") {
			written += "@" + dgst.String()
		}
		if d, err := declaration.Parse(written, declaration.Where{File: "stax.lock"}); err == nil && registries[d.Ref.Registry] {
			r.prefetch(d, "", 2)
		}
	}
}

// prefetch starts looking up decl, declared by a package from the
// registry mirror (empty for a declaration of the user's), unless that was
// started already or decl is not a registry reference whose lookup needs
// nothing of the walk: a directory, a layout and a tag of the local store
// are left to the walk. A declaration in a version range, unpinned, has
// its tag picked in the range first (see inRange). depth is how deep decl
// is; the dependencies of what it finds, pinned by digest, are prefetched
// in turn, to MaxDepth.
func (r *resolver) prefetch(d declaration.Declaration, mirror string, depth int) {
	p := r.ahead
	if depth > MaxDepth || !d.IsRemote() {
		return
	}
	if _, private := privateFromPublic(mirror, d); private {
		return // the walk decides whether it may be reached (checkReach)
	}
	ref, ok := r.pinned(d)
	if !ok {
		return
	}
	rng, ahead := r.inRange(d, ref, depth)
	if !ahead {
		return
	}
	var selectTag func(*target.Target) error
	if rng != nil {
		selectTag = func(t *target.Target) error { return selectInRange(p.ctx, t, rng) }
	}
	key := prefetchKey(ref, rng, mirror)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, started := p.ahead[key]; started {
		return
	}
	job := &pending{done: make(chan struct{})}
	p.ahead[key] = job
	p.wg.Go(func() {
		select {
		case p.slots <- struct{}{}:
		case <-p.ctx.Done():
			job.l = &looked{openErr: p.ctx.Err()}
			close(job.done)
			return
		}
		// A slot is a package being fetched: its manifest, then its
		// config and its layer (see Options.FetchLayers) at once.
		defer func() { <-p.slots }()
		l := r.lookUp(p.ctx, ref, mirror, selectTag)
		var layer <-chan struct{}
		if l.openErr == nil && l.lookupErr == nil {
			layer = r.fetchLayerAhead(l, d)
			r.check(p.ctx, l)
		}
		job.l = l
		close(job.done)
		if l.checkErr == nil && l.pkg != nil {
			// A dependency that does not parse is the walk's to report.
			deps, _ := dependenciesOf(l.pkg, d.Written)
			for _, dep := range deps {
				r.prefetch(dep, registryOf(l.t), depth+1)
			}
		}
		// The walk goes on with what was checked; the slot is held
		// until the layer is in too, or until resolving ends.
		if layer != nil {
			select {
			case <-layer:
			case <-p.ctx.Done():
			}
		}
	})
}

// taken returns the lookup of decl, at depth, prefetched for the walk,
// waiting for it to end; nil when none was started.
func (r *resolver) taken(d declaration.Declaration, mirror string, depth int) *looked {
	ref, ok := r.pinned(d)
	if !ok {
		return nil
	}
	rng, ahead := r.inRange(d, ref, depth)
	if !ahead {
		return nil
	}
	p := r.ahead
	p.mu.Lock()
	job := p.ahead[prefetchKey(ref, rng, mirror)]
	p.mu.Unlock()
	if job == nil {
		return nil
	}
	<-job.done
	return job.l
}

// opened records a target a lookup opened, for the graph to close.
func (r *resolver) opened(t *target.Target) {
	p := r.ahead
	p.mu.Lock()
	p.targets = append(p.targets, t)
	p.mu.Unlock()
}

// finish stops what is still being fetched ahead, waits for it, and hands
// every target opened to the graph.
func (r *resolver) finish() {
	p := r.ahead
	p.cancel()
	p.wg.Wait()
	r.graph.targets = append(r.graph.targets, p.targets...)
	p.targets = nil
}

// registryOf is the registry a dependency declared by a package read
// from t is looked for on first (see noteMirror): t's, for a registry.
func registryOf(t *target.Target) string {
	if t == nil || t.Kind != target.KindRemote {
		return ""
	}
	return t.Ref.Registry
}
