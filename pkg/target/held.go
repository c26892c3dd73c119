package target

import (
	"bytes"
	"context"
	"io"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	orasregistry "oras.land/oras-go/v2/registry"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
)

// OpenRegistry opens the registry repository ref names for reading, as
// oras, crane and helm read a reference: the registry says which manifest
// a tag names, whatever the local store remembers. The blobs the local
// store already holds are read from it rather than downloaded again: a
// blob is named by its digest, and what the store serves is checked
// against that digest as it is read. Nothing is written to the store.
func (o *Opener) OpenRegistry(ctx context.Context, ref reference.Reference) (*Target, error) {
	t, err := o.Open(ctx, ref, store.ReadOnly)
	if err != nil || t.Kind != KindRemote {
		return t, err
	}
	// Read as a layout, as OpenStored reads it: a reader needs no lock,
	// and waiting on a writer's would stall a read the registry can serve.
	local, err := store.OpenLayoutReadOnly(ctx, o.StoreDir)
	if err != nil {
		// No store, or a damaged one, only saves nothing: the registry
		// has every blob.
		return t, nil
	}
	t.GraphTarget = &heldLocally{GraphTarget: t.GraphTarget, local: local, cache: o.Layout == ""}
	t.close = local.Close
	return t, nil
}

// OpenPinned is OpenRegistry for a reference pinned by digest: the
// manifest it pins is read from the local store too when the store holds
// it, so that a package stored whole is read without a request. A digest
// names the same bytes wherever they are; only a tag is the registry's
// to say.
func (o *Opener) OpenPinned(ctx context.Context, ref reference.Reference) (*Target, error) {
	t, err := o.OpenRegistry(ctx, ref)
	if err != nil {
		return nil, err
	}
	if h, ok := t.GraphTarget.(*heldLocally); ok {
		h.pinned = ref.Digest
	}
	return t, nil
}

// heldLocally is a registry repository whose blobs are fetched from the
// local store when it holds them, and with pinned, the manifest of that
// digest too. Everything else (tags, manifests by tag, referrers) is the
// registry's.
type heldLocally struct {
	oras.GraphTarget
	local  *store.ReadOnlyLayout
	pinned digest.Digest
	// cache says local is stax's own store, whose corrupt copies it
	// removes, not a layout --oci-layout named, which is the user's.
	cache bool
}

// storedPin is the descriptor of the pinned manifest, when the local
// store holds it.
func (h *heldLocally) storedPin(ctx context.Context, reference string) (ocispec.Descriptor, bool) {
	if h.pinned == "" || reference != h.pinned.String() {
		return ocispec.Descriptor{}, false
	}
	desc, err := h.local.Resolve(ctx, reference)
	// The store resolves a digest it holds as a plain blob too: only a
	// manifest it lists is the one pinned.
	if err != nil || desc.Digest != h.pinned || desc.MediaType != ocispec.MediaTypeImageManifest {
		return ocispec.Descriptor{}, false
	}
	return desc, true
}

func (h *heldLocally) Resolve(ctx context.Context, reference string) (ocispec.Descriptor, error) {
	if desc, ok := h.storedPin(ctx, reference); ok {
		return desc, nil
	}
	return h.GraphTarget.Resolve(ctx, reference)
}

// FetchReference serves the pinned manifest from the store when it holds
// it, and anything else as the registry does, in one request (see
// Target.LookupManifest).
func (h *heldLocally) FetchReference(ctx context.Context, reference string) (ocispec.Descriptor, io.ReadCloser, error) {
	if desc, ok := h.storedPin(ctx, reference); ok {
		rc, err := h.Fetch(ctx, desc)
		return desc, rc, err
	}
	fetcher, ok := h.GraphTarget.(orasregistry.ReferenceFetcher)
	if !ok {
		return ocispec.Descriptor{}, nil, errdef.ErrUnsupported
	}
	return fetcher.FetchReference(ctx, reference)
}

func (h *heldLocally) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	// A blob the store does not have, or cannot read, is the registry's
	// to serve.
	rc, err := h.local.Fetch(ctx, desc)
	if err != nil {
		return h.GraphTarget.Fetch(ctx, desc)
	}
	if desc.Size > artifact.MaxMetadataSize {
		return artifact.VerifyReader(rc, desc), nil
	}
	// A manifest or config is checked whole before it is served: the
	// store's copy that does not match is dropped (see
	// store.RemoveCorrupt) and the registry serves the blob, rather
	// than its corruption being taken for the registry's.
	data, err := content.ReadAll(rc, desc)
	rc.Close()
	if err != nil {
		if h.cache {
			_, _ = store.RemoveCorruptIn(h.local.Dir, desc)
		}
		return h.GraphTarget.Fetch(ctx, desc)
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// Tags lists the registry's tags, which Target.Tags finds by this method.
func (h *heldLocally) Tags(ctx context.Context, last string, fn func([]string) error) error {
	lister, ok := h.GraphTarget.(orasregistry.TagLister)
	if !ok {
		return errdef.ErrUnsupported
	}
	return lister.Tags(ctx, last, fn)
}
