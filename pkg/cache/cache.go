// Package cache is the local store and the registries as one source of
// packages (resolve.Source), and the step of a job that keeps a resolved
// graph in the local store: the skills layers fetched while resolving,
// then every registry package stored, tagged under its reference, and
// every package built from a git source, tagged under its key (see
// resolve.GitNode.StoreKey), with its layer read as it is stored.
// Resolving stores nothing itself; a job that stores what it resolved
// hands resolve.Resolve a Packages and then stores the graph through the
// same one, which knows what it fetched ahead.
package cache

import (
	"context"
	"io"
	"slices"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// Packages opens packages for one job through a target.Opener and keeps
// what the job fetches in the local store, which it opens for writing
// once, when first written, and holds, with its lock, until Close.
type Packages struct {
	opener *target.Opener
	// progress, when set, is told about the layers fetched ahead (a store
	// then does not report them again as blobs the store had) and those
	// ReadLayer fetches.
	progress transfer.Progress

	storeMu sync.Mutex
	store   *target.Target

	// stopAhead stops the fetches ahead: a store stopped, or Close.
	stopAhead context.CancelFunc
	stopped   context.Context
	wg        sync.WaitGroup
	mu        sync.Mutex
	// started holds, by digest, a channel closed once that layer's fetch
	// ahead has ended; fetched the layers it stored.
	started map[digest.Digest]chan struct{}
	fetched map[digest.Digest]bool
	// corrupt holds, by digest, the explained error of a layer whose
	// bytes did not match it.
	corrupt map[digest.Digest]error
}

var _ resolve.Source = (*Packages)(nil)

// New returns the packages opener opens, for one job. A repository is
// asked for its tags once however many declarations name it (see
// target.TagMemo). progress, when set, follows the layers p fetches
// itself: ahead (FetchLayer) and read (ReadLayer).
func New(opener *target.Opener, progress transfer.Progress) *Packages {
	if opener.TagMemo == nil {
		o := *opener
		o.TagMemo = target.NewTagMemo()
		opener = &o
	}
	stopped, stop := context.WithCancel(context.Background())
	return &Packages{opener: opener, progress: progress, stopped: stopped, stopAhead: stop,
		started: map[digest.Digest]chan struct{}{}, fetched: map[digest.Digest]bool{}, corrupt: map[digest.Digest]error{}}
}

// Open opens the registry repository or oci: layout ref names, for
// reading only.
func (p *Packages) Open(ctx context.Context, ref reference.Reference) (*target.Target, error) {
	return p.opener.Open(ctx, ref, store.ReadOnly)
}

// OpenPinned opens ref, pinned by digest, reading what the local store
// holds of it from there (target.Opener.OpenPinned).
func (p *Packages) OpenPinned(ctx context.Context, ref reference.Reference) (*target.Target, error) {
	return p.opener.OpenPinned(ctx, ref)
}

// LookupStored finds ref, a name without a registry host, among the
// local store's tags (target.Opener.OpenStored), read without the store's
// lock; a missing one is named with the store's tags nearest to it.
// selectTag, when set, chooses the tag first (a range's, see
// resolve.Source).
func (p *Packages) LookupStored(ctx context.Context, ref reference.Reference, selectTag func(*target.Target) error) (*target.Target, ocispec.Descriptor, error) {
	t, err := p.opener.OpenStored(ctx, ref)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	if selectTag != nil {
		if err := selectTag(t); err != nil {
			t.Close()
			return nil, ocispec.Descriptor{}, err
		}
	}
	desc, err := t.Lookup(ctx)
	if err != nil {
		t.Close()
		return nil, ocispec.Descriptor{}, p.opener.MissingLocalTag(ctx, ref, err)
	}
	return t, desc, nil
}

// OpenBuilt builds a package into a temporary layout and opens it there
// (target.Opener.OpenBuilt).
func (p *Packages) OpenBuilt(ctx context.Context, name string, build func(content.Pusher) (ocispec.Descriptor, error)) (*target.Target, error) {
	return p.opener.OpenBuilt(ctx, name, build)
}

// Close stops the layers still being fetched ahead, waits for them, and
// releases the local store if it was opened.
func (p *Packages) Close() error {
	p.mu.Lock()
	p.stopAhead() // under mu: no fetch starts once Close is waiting
	p.mu.Unlock()
	p.wg.Wait()
	p.storeMu.Lock()
	defer p.storeMu.Unlock()
	if p.store == nil {
		return nil
	}
	err := p.store.Close()
	p.store = nil
	return err
}

// LockStore opens the local store for writing, as storing the graph
// does, when g has a package to store (see stored): an install takes the
// store's lock before the folders' (see install.LockProject for the
// order), so that no stax holds a folder while it waits for the store,
// which another holds while it waits for that folder.
func (p *Packages) LockStore(ctx context.Context, g *resolve.Graph) error {
	if slices.ContainsFunc(g.Order, stored) {
		_, err := p.local(ctx)
		return err
	}
	return nil
}

// stored says whether a store of the graph keeps n: a registry's
// package, and one built from a git source, which stax propose reads
// back by the digest its install recorded. A package built from a
// directory is not kept: every edit builds another, and the directory
// is where it is read again.
func stored(n *resolve.Node) bool {
	return n.Target.Kind == target.KindRemote || n.Git != nil
}

// local opens the local store for writing, once: p keeps it, and its
// lock, until closed. Layers read at once ask for it at once.
func (p *Packages) local(ctx context.Context) (*target.Target, error) {
	p.storeMu.Lock()
	defer p.storeMu.Unlock()
	if p.store != nil {
		return p.store, nil
	}
	t, err := p.opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
	if err != nil {
		return nil, err
	}
	p.store = t
	return t, nil
}

// Store copies every registry package of g, which p resolved, into the
// local store, tagged under its reference, and every package built from
// a git source, tagged under its key, and has g read it from there
// from then on: what was resolved is kept, and a registry that goes away
// after this point cannot leave a materialization half done. A package's
// manifest and config are the bytes resolving fetched and checked, not
// asked for again, and a layer already in the store (fetched ahead, or
// see Layers) is not fetched. Packages are copied at once,
// opts.Concurrency at most (0: as many as transfer.DefaultConcurrency);
// one whose blobs an earlier package also has waits for that one, then
// finds them stored, so a blob is fetched once. The first failure in the
// graph's order is returned, and stops the others. The store stays
// locked until p is closed.
func (p *Packages) Store(ctx context.Context, g *resolve.Graph, opts transfer.Options) ([]*transfer.Result, error) {
	return p.StartStore(ctx, g, opts).Wait()
}

// Storing is a Store under way.
type Storing struct {
	p     *Packages
	index map[*resolve.Node]int // of the packages stored (see stored)
	// done[i] is closed once the store of the i-th package stored has
	// ended, with errs[i]; one never started is never closed.
	done     []chan struct{}
	errs     []error
	finished chan struct{}
	results  []*transfer.Result
	err      error
}

// StartStore starts Store on a goroutine of its own: a package can be
// read from the store (see Stored) while the others are still being
// fetched. Until Wait has returned, a package's Target is not to be
// read before Stored has returned for it, nor g or p closed.
func (p *Packages) StartStore(ctx context.Context, g *resolve.Graph, opts transfer.Options) *Storing {
	s := &Storing{p: p, index: map[*resolve.Node]int{}, finished: make(chan struct{})}
	var remote []*resolve.Node
	for _, n := range g.Order {
		if stored(n) {
			s.index[n] = len(remote)
			remote = append(remote, n)
		}
	}
	s.done, s.errs = make([]chan struct{}, len(remote)), make([]error, len(remote))
	for i := range s.done {
		s.done[i] = make(chan struct{})
	}
	// A store stopped needs no layer: a fetch ahead waiting for the
	// store's lock, which it holds p's store for, lets go of it.
	context.AfterFunc(ctx, p.stopAhead)
	go func() {
		defer close(s.finished)
		s.results, s.err = p.storeAll(ctx, opts, remote, s)
	}()
	return s
}

// Wait waits for the store to end, and returns what Store returns.
func (s *Storing) Wait() ([]*transfer.Result, error) {
	<-s.finished
	return s.results, s.err
}

// Stored waits until n can be read from its Target: at once for a
// package the store does not keep (see stored), else once it is in the
// local store. It returns the failure to store n, the store's failure
// when it ended before storing n, or ctx's error.
func (s *Storing) Stored(ctx context.Context, n *resolve.Node) error {
	i, ok := s.index[n]
	if !ok {
		return nil
	}
	select {
	case <-s.done[i]:
		return s.errs[i]
	case <-s.finished:
		select {
		case <-s.done[i]:
			return s.errs[i]
		default:
			// Never started: the store failed first.
			return s.err
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// LayerReady waits until n's skills layer can be read (see ReadLayer):
// at once for a layer the local store holds, fetched ahead or there
// before, else once n is stored (see Stored). It returns what Stored
// returns.
func (s *Storing) LayerReady(ctx context.Context, n *resolve.Node) error {
	if _, ok := s.layerHeld(ctx, n); ok {
		return nil
	}
	return s.Stored(ctx, n)
}

// ReadLayer reads n's skills layer, verified (see resolve.ReadLayer):
// from the local store as soon as it holds the layer, though n itself,
// its manifest and tag, may not be stored yet, which on a cold store
// means two writes of index.json, each synced, behind those of the
// packages stored at the same time; else from where n is once stored.
// A job commits nothing read so before Wait has returned. The layer is
// looked for again after a LayerReady that found it, one stat, rather
// than remembered: a caller need not call LayerReady first (install.Stage
// does not when two layers stage one path).
func (s *Storing) ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error {
	if local, ok := s.layerHeld(ctx, n); ok {
		return resolve.ReadLayer(ctx, n, local, read)
	}
	if err := s.Stored(ctx, n); err != nil {
		return err
	}
	// n.Target is read after Stored: storing moves n to the local store,
	// and the layer is read, and explained, from where n is then.
	return resolve.ReadLayer(ctx, n, n.Target, read)
}

// layerHeld returns the local store naming n as storeNode names it,
// once n's fetch ahead, if any, has ended, when the store holds n's
// skills layer, whether or not n itself is stored yet. Only a registry
// package's is looked for: one built from a git source is named in the
// store by its key, and its layer is in the layout it was built into
// until it is stored. A layer not held, or whose fetch ahead failed, is
// not: storing n fetches it, or reports why it cannot.
func (s *Storing) layerHeld(ctx context.Context, n *resolve.Node) (*target.Target, bool) {
	if _, ok := s.index[n]; !ok || n.Git != nil || n.Package.Skills == nil {
		return nil, false
	}
	if s.p.waitAhead(ctx, n) != nil {
		return nil, false // storing n reports it
	}
	local, err := s.p.local(ctx)
	if err != nil {
		return nil, false
	}
	if ok, err := local.Exists(ctx, *n.Package.Skills); err != nil || !ok {
		return nil, false
	}
	ref := n.Reference()
	ref.Digest = n.Digest
	return local.WithRef(ref), true
}

func (p *Packages) storeAll(ctx context.Context, opts transfer.Options, remote []*resolve.Node, s *Storing) ([]*transfer.Result, error) {
	if len(remote) == 0 {
		return nil, nil
	}
	local, err := p.local(ctx)
	if err != nil {
		return nil, err
	}
	results := make([]*transfer.Result, len(remote))
	after := sharingBlobs(remote)
	// Packages start in graph order, so the ones a package waits for have
	// started before it and do not wait for it.
	err = inorder.Concurrently(ctx, len(remote), opts.Concurrency, func(ctx context.Context, i int) (err error) {
		defer func() {
			s.errs[i] = err
			close(s.done[i])
		}()
		for _, j := range after[i] {
			select {
			case <-s.done[j]:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := p.waitAhead(ctx, remote[i]); err != nil {
			return err
		}
		results[i], err = storeNode(ctx, remote[i], local, p.progressOf(opts))
		return err
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// sharingBlobs gives, for each of nodes, the earlier ones that have one
// of its blobs: storing it waits for them.
func sharingBlobs(nodes []*resolve.Node) [][]int {
	first := map[digest.Digest]int{}
	after := make([][]int, len(nodes))
	for i, n := range nodes {
		blobs := append([]ocispec.Descriptor{n.Package.Manifest.Config}, n.Package.Manifest.Layers...)
		for _, b := range blobs {
			j, seen := first[b.Digest]
			switch {
			case !seen:
				first[b.Digest] = i
			case j != i && !slices.Contains(after[i], j):
				after[i] = append(after[i], j)
			}
		}
	}
	return after
}

// storeNode copies n, a registry package or one built from a git source,
// into local, and has n read from there from then on.
func storeNode(ctx context.Context, n *resolve.Node, local *target.Target, opts transfer.Options) (*transfer.Result, error) {
	ref := n.Reference()
	ref.Digest = n.Digest
	dst := local.WithRef(ref)
	src := n.Target.WithRef(ref)
	if n.Git != nil {
		// Read from the layout it was built into, at its digest, and
		// tagged with a key no registry reference has.
		src, dst = n.Target, local.WithKey(n.Digest, n.Git.StoreKey())
	}
	if held, ok := n.Held(); ok && !opts.Referrers {
		// The manifest and config are stored as resolving fetched
		// and checked them; what refers to the package is listed
		// through the repository itself.
		src.GraphTarget = held
	}
	res, err := transfer.Copy(ctx, src, dst, opts)
	if err != nil {
		return nil, err
	}
	n.MoveTo(dst)
	return res, nil
}
