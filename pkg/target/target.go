// Package target opens the places a package can be — the local store, an
// OCI layout directory, a registry repository — behind one interface, so
// that push, pull and copy are the same operation between two targets.
package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/errdef"
	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/store"
)

// Kind says where a target is.
type Kind string

const (
	KindLocal  Kind = "local"  // the local store
	KindLayout Kind = "layout" // an OCI layout directory
	KindRemote Kind = "remote" // a registry repository
)

// Target is an opened place holding packages.
type Target struct {
	oras.GraphTarget
	Ref  reference.Reference
	Kind Kind
	// Host is the registry host of a remote target, for messages.
	Host string
	// dir is the directory of a local or layout target, for messages.
	dir string
	// key, when set, is the tag of the local store the target names,
	// which no reference has (see WithKey).
	key     string
	close   func() error
	discard func() error
	// tagMemo, when set, remembers the tags a remote target listed.
	tagMemo *TagMemo
	// lockDir is Opener.LockDir, and notes Opener.Notes, for LockTag.
	lockDir string
	notes   io.Writer
	// client opened a remote target, whose registry's catalog may name
	// the repository meant when the target's is not there.
	client *registry.Client
	// storeDir is the local store of a remote target, whose packages may
	// name the repository meant when the target's is not there.
	storeDir string
	// cache says a local target is stax's own store, whose corrupt
	// copies it removes (see explainCorrupt), not a layout the user
	// named with --oci-layout to stand in for it.
	cache bool
	// packedHere says a local target names a package by a tag without a
	// registry host, as stax pack -t writes it: no registry has it.
	packedHere bool
}

// LayoutDir is the directory of a local store or layout target, where
// store.WriteBlob can write blobs in place; empty for a registry.
func (t *Target) LayoutDir() string {
	if t.Kind == KindLocal || t.Kind == KindLayout {
		return t.dir
	}
	return ""
}

// Close releases what opening the target took (a store lock); closing
// it again does nothing.
func (t *Target) Close() error {
	if t.close == nil {
		return nil
	}
	close := t.close
	t.close = nil
	return close()
}

// Discard closes a target a write into failed, and removes the OCI layout
// that opening it created, if it did: a failed copy leaves no empty
// layout behind. Anything else is closed as Close does.
func (t *Target) Discard() error {
	if t.discard == nil {
		return t.Close()
	}
	err := t.discard()
	t.discard = nil
	return errors.Join(err, t.Close())
}

// DiscardAfter discards t (see Discard) after err, a failed write into
// it, and returns err, saying so if removing the layout failed too.
func DiscardAfter(t *Target, err error) error {
	if discardErr := t.Discard(); discardErr != nil {
		return fmt.Errorf("%w (%v)", err, discardErr)
	}
	return err
}

// Name is how messages name the target.
func (t *Target) Name() string {
	if t.key != "" {
		return t.key
	}
	return t.Ref.Familiar()
}

// selector is what to resolve or tag: the digest, else the tag key.
func (t *Target) selector() string {
	if t.Ref.Digest != "" {
		return t.Ref.Digest.String()
	}
	return t.tagKey()
}

func (t *Target) tagKey() string {
	if t.key != "" {
		return t.key
	}
	if t.Kind == KindLocal {
		return store.Key(t.Ref)
	}
	return t.Ref.Tag
}

// Lookup resolves the target's own reference: its digest, else its tag.
// A reference naming neither is given the repository's default first (see
// DefaultTag), which Ref then names. A tag that is not there is reported
// with the tags that are.
func (t *Target) Lookup(ctx context.Context) (ocispec.Descriptor, error) {
	if err := t.SelectDefault(ctx); err != nil {
		return ocispec.Descriptor{}, err
	}
	desc, err := t.GraphTarget.Resolve(ctx, t.selector())
	if err != nil {
		return ocispec.Descriptor{}, t.explainLookup(ctx, err)
	}
	return desc, nil
}

// LookupManifest is Lookup for a caller about to read the manifest: a
// registry answers a GET of the manifest by tag (or digest) with its
// digest and its content in one round trip, where Lookup's HEAD and a
// GET by digest are two. manifest is that content, unread and not yet
// verified (the caller reads it against desc and closes it); nil where
// the target only resolved the reference, as Lookup does.
func (t *Target) LookupManifest(ctx context.Context) (desc ocispec.Descriptor, manifest io.ReadCloser, err error) {
	fetcher, ok := t.GraphTarget.(orasregistry.ReferenceFetcher)
	if t.Kind != KindRemote || !ok {
		desc, err = t.Lookup(ctx)
		return desc, nil, err
	}
	if err := t.SelectDefault(ctx); err != nil {
		return ocispec.Descriptor{}, nil, err
	}
	desc, manifest, err = fetcher.FetchReference(ctx, t.selector())
	if err != nil {
		return ocispec.Descriptor{}, nil, t.explainLookup(ctx, err)
	}
	return desc, manifest, nil
}

// explainLookup explains err, the failure to look the target's reference
// up; a tag that is not there is reported with the tags that are.
func (t *Target) explainLookup(ctx context.Context, err error) error {
	if errors.Is(err, errdef.ErrNotFound) && t.Ref.Digest == "" {
		if hint := t.missingTagHint(ctx); hint != "" {
			return fmt.Errorf("%w%s", t.Explain(err), hint)
		}
	}
	return t.Explain(err)
}

// TagAs tags desc with the target's tag, if it has one. A reference that
// pins a digest must name desc itself.
func (t *Target) TagAs(ctx context.Context, desc ocispec.Descriptor) error {
	if t.Ref.Digest != "" && t.Ref.Digest != desc.Digest {
		return errdefs.Invalid(fmt.Errorf("%s pins %s, but the package is %s", t.Name(), t.Ref.Digest, desc.Digest))
	}
	key := t.tagKey()
	if key == "" {
		return nil
	}
	if err := t.GraphTarget.Tag(ctx, desc, key); err != nil {
		return t.Explain(fmt.Errorf("tag %s: %w", t.Name(), err))
	}
	return nil
}

// Explain gives registry failures their message and exit code; local ones
// are file-system errors, but for a name that is not there, which is the
// user's to fix.
func (t *Target) Explain(err error) error {
	switch {
	case t.Kind == KindRemote:
		return registry.Explain(err, t.Host, t.Name())
	case registry.Mismatch(err) != nil:
		return t.explainCorrupt(err)
	case errors.Is(err, errdef.ErrNotFound) && t.Kind == KindLocal:
		return errdefs.Invalid(fmt.Errorf("%s is not in the local store %s: pack it with `stax pack -t %s`, or pull it", t.Name(), t.dir, t.Name()))
	case errors.Is(err, errdef.ErrNotFound):
		return errdefs.Invalid(fmt.Errorf("%s not found in the OCI layout: %w", t.Name(), err))
	}
	return errdefs.MarkLocal(fmt.Errorf("%s: %w", t.Name(), err))
}

// Opener opens targets for one command, sharing one registry client.
type Opener struct {
	// StoreDir is the local store directory.
	StoreDir string
	// Layout, when set, is the OCI layout directory the user named to
	// stand in for the local store (--oci-layout): a bare tag names a tag
	// in it, as with oras and skopeo, not a Docker Hub repository.
	Layout string
	// Registry opens remote repositories.
	Registry *registry.Client
	// Warnings is where opening a store says what it repaired; standard
	// error when nil.
	Warnings io.Writer
	// Notes, when set, is where a writer that finds a layout's or a
	// tag's lock held says that it waits; nil says nothing.
	Notes io.Writer
	// TagMemo, when set, remembers the tags of the registry repositories
	// the opened targets list, for a job that reads them more than once;
	// nil asks the registry each time.
	TagMemo *TagMemo
	// LockDir holds the locks that serialize stax processes writing one
	// OCI layout, or claiming one registry tag (see Target.LockTag);
	// empty takes no lock.
	LockDir string
}

// BareTag returns arg as a reference to a tag of o.Layout when there is
// one and arg is a bare tag (such as 1.0.0); otherwise arg itself.
func (o *Opener) BareTag(arg string) string {
	if o.Layout == "" || strings.ContainsAny(arg, "/:@") || !reference.ValidTag(arg) {
		return arg
	}
	return reference.LayoutPrefix + o.Layout + ":" + arg
}

// Open opens the target ref names: an oci: layout, or a registry
// repository. Use OpenLocal for the local store. A layout opened ReadOnly
// must exist and is never written; one opened ReadWrite is created when
// its directory does not exist or is empty.
func (o *Opener) Open(ctx context.Context, ref reference.Reference, mode store.Mode) (*Target, error) {
	if ref.IsLayout() && mode == store.ReadOnly {
		l, err := store.OpenLayoutReadOnly(ctx, ref.Layout)
		if err != nil {
			return nil, err
		}
		return &Target{GraphTarget: l, Ref: ref, Kind: KindLayout, dir: l.Dir, close: l.Close}, nil
	}
	if ref.IsLayout() {
		// Held until Close: the index is read, checked and written by
		// one writer at a time, and what opening creates is removed only
		// by the writer that created it.
		unlock, err := o.lockLayout(ctx, ref.Layout)
		if err != nil {
			return nil, err
		}
		s, err := store.OpenLayout(ctx, ref.Layout)
		if err != nil {
			unlock()
			return nil, err
		}
		o.warnRepaired(s)
		closeAndUnlock := func() error {
			defer unlock()
			return s.Close()
		}
		return &Target{GraphTarget: s, Ref: ref, Kind: KindLayout, dir: s.Dir, close: closeAndUnlock, discard: s.Discard}, nil
	}
	repo, err := o.Registry.Repository(ref)
	if err != nil {
		return nil, err
	}
	return &Target{GraphTarget: o.Registry.Uploads(repo), Ref: ref, Kind: KindRemote, Host: ref.Registry, tagMemo: o.TagMemo, lockDir: o.LockDir, notes: o.Notes, client: o.Registry, storeDir: o.StoreDir}, nil
}

// OpenLocal opens ref in the local store.
func (o *Opener) OpenLocal(ctx context.Context, ref reference.Reference, mode store.Mode) (*Target, error) {
	s, err := o.OpenStore(ctx, mode)
	if err != nil {
		return nil, err
	}
	return &Target{GraphTarget: s, Ref: ref, Kind: KindLocal, dir: s.Dir, close: s.Close, cache: o.Layout == ""}, nil
}

// OpenStore opens the local store itself, for a job on the whole store
// rather than on a package in it.
func (o *Opener) OpenStore(ctx context.Context, mode store.Mode) (*store.Store, error) {
	s, err := store.OpenLocal(ctx, o.StoreDir, mode)
	if err != nil {
		return nil, err
	}
	if mode == store.ReadWrite && o.Layout != "" {
		// --oci-layout X: the store is the layout oci:X names, which push,
		// copy and pack -t write under its layout lock; a writer of the
		// store takes that lock too, after the store's, in the order a
		// push of a stored package to oci:X takes the two.
		unlock, err := o.lockLayout(ctx, o.StoreDir)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.ReleaseOnClose(unlock)
	}
	o.warnRepaired(s)
	return s, nil
}

// warnRepaired says what opening s repaired, if anything: the store works,
// but the user may have lost tags.
func (o *Opener) warnRepaired(s *store.Store) {
	if s.Repaired == "" {
		return
	}
	w := o.Warnings
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "warning: %s\n", s.Repaired)
}

// WithCleanup returns t with cleanup run after t's own Close.
func WithCleanup(t *Target, cleanup func() error) *Target {
	inner := t.close
	t.close = func() error {
		var err error
		if inner != nil {
			err = inner()
		}
		return errors.Join(err, cleanup())
	}
	return t
}

// WithRef is a view of t naming another reference in the same place. It
// shares t's resources: closing t closes it; closing it does nothing.
func (t *Target) WithRef(ref reference.Reference) *Target {
	view := *t
	view.Ref, view.close, view.discard = ref, nil, nil
	return &view
}

// WithKey is a view of t, the local store, naming the package d under
// key, a tag of the store no registry reference is keyed by (see
// store.Key): a package built from a git source, which has no registry
// reference. It shares t's resources as WithRef does.
func (t *Target) WithKey(d digest.Digest, key string) *Target {
	view := t.WithRef(reference.Reference{Digest: d})
	view.key = key
	return view
}

// Tags lists the tags of the repository or layout the target is in, page
// by page as the registry serves them; none for a repository that does
// not exist yet. In the local store, which keys tags by the whole
// reference, they are the tags of the target's repository.
func (t *Target) Tags(ctx context.Context) ([]string, error) {
	if t.tagMemo != nil {
		return t.tagMemo.tags(ctx, t.Ref.Name(), t.listTags)
	}
	return t.listTags(ctx)
}

// listTags is Tags, asking the registry or reading the store.
func (t *Target) listTags(ctx context.Context) ([]string, error) {
	lister, ok := t.GraphTarget.(orasregistry.TagLister)
	if !ok {
		return nil, fmt.Errorf("%s cannot list tags", t.Name())
	}
	var localPrefix string
	if t.Kind == KindLocal {
		repo := t.Ref
		repo.Tag, repo.Digest = "", ""
		localPrefix = repo.Familiar() + ":"
	}
	where := "registry " + t.Host
	if t.Kind != KindRemote {
		where = t.Name()
	}
	var budget *registry.TagBudget
	if t.tagMemo != nil {
		budget = t.tagMemo.budget
	}
	var tags []string
	err := registry.ListTags(ctx, lister, where, budget, func(page []string) error {
		if t.Kind != KindLocal {
			tags = append(tags, page...)
			return nil
		}
		for _, key := range page {
			if tag, ok := strings.CutPrefix(key, localPrefix); ok {
				tags = append(tags, tag)
			}
		}
		return nil
	})
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound {
		return nil, nil // a repository nothing was pushed to yet
	}
	if err != nil {
		return nil, t.Explain(fmt.Errorf("list tags: %w", err))
	}
	return tags, nil
}
