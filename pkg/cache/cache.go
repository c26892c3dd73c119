// Package cache is the local store and the registries as one source of
// packages (resolve.Source), and the step of a job that keeps a resolved
// graph in the local store: the skills layers fetched while resolving,
// then every registry package stored, tagged under its reference, with
// its layer read as it is stored. Resolving stores nothing itself; a job
// that stores what it resolved hands resolve.Resolve a Packages and then
// stores the graph through the same one, which knows what it fetched
// ahead.
package cache

import (
	"context"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

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
func (p *Packages) LookupStored(ctx context.Context, ref reference.Reference) (*target.Target, ocispec.Descriptor, error) {
	t, err := p.opener.OpenStored(ctx, ref)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
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
// does, when g has a registry's package to store: an install takes the
// store's lock before the folders' (see install.LockProject for the
// order), so that no stax holds a folder while it waits for the store,
// which another holds while it waits for that folder.
func (p *Packages) LockStore(ctx context.Context, g *resolve.Graph) error {
	for _, n := range g.Order {
		if n.Target.Kind == target.KindRemote {
			_, err := p.local(ctx)
			return err
		}
	}
	return nil
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
