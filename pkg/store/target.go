package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
)

// The store is oras-go's layout store (content/oci.Store) rebuilt on its
// blob storage, with the index stax keeps (see layoutIndex) as its tags,
// and predecessors found when first asked for (see predecessors): oras-go
// reads index.json a second time and every manifest it lists whenever a
// layout is opened, and holds the file whole while it decodes it.

// Fetch reads the blob desc.
func (s *Store) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	return s.blobs.Fetch(ctx, desc)
}

// Exists says whether the blob desc is in the store.
func (s *Store) Exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	return s.blobs.Exists(ctx, desc)
}

// Resolve returns the descriptor a tag or digest names (see resolveIn).
func (s *Store) Resolve(ctx context.Context, reference string) (ocispec.Descriptor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return resolveIn(s.index.refs, s.root, reference)
}

// resolveIn returns the descriptor reference names in a layout whose index
// has refs, as oras-go's layout store does: a tag's whole descriptor, a
// manifest's digest its plain descriptor, any other blob's digest an
// octet stream of its size.
func resolveIn(refs map[string]ocispec.Descriptor, root *os.Root, reference string) (ocispec.Descriptor, error) {
	if reference == "" {
		return ocispec.Descriptor{}, errdef.ErrMissingReference
	}
	desc, ok := refs[reference]
	switch {
	case ok && reference == desc.Digest.String():
		return plain(desc), nil
	case ok:
		return desc, nil
	}
	d := digest.Digest(reference)
	if d.Validate() != nil {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %w", reference, errdef.ErrNotFound)
	}
	info, err := fs.Stat(root.FS(), blobPath(d))
	if errors.Is(err, fs.ErrNotExist) {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %w", reference, errdef.ErrNotFound)
	}
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	return ocispec.Descriptor{MediaType: "application/octet-stream", Digest: d, Size: info.Size()}, nil
}

// Predecessors returns the manifests that refer to node, but for the
// referrers indexes the store keeps (see recordReferrer).
func (s *Store) Predecessors(ctx context.Context, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	preds, err := s.predecessors(ctx, node)
	if err != nil {
		return nil, err
	}
	return withoutReferrersIndexes(preds, func() map[digest.Digest]bool { return referrersIndexes(s.index.refs) }), nil
}

// predecessors returns the manifests that refer to node, building the
// graph of the store if no one asked before. The caller holds s.mu.
func (s *Store) predecessors(ctx context.Context, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	if s.graph == nil {
		g, err := graphOf(ctx, s.blobs, s.index.refs)
		if err != nil {
			return nil, fmt.Errorf("read the manifests of %s: %w", s.Dir, err)
		}
		s.graph = g
	}
	return s.graph.list(node), nil
}

// graphOf builds the predecessors of what a layout whose index has refs
// lists, as oras-go does when it opens a layout.
func graphOf(ctx context.Context, fetcher content.Fetcher, refs map[string]ocispec.Descriptor) (*predecessors, error) {
	roots := make([]ocispec.Descriptor, 0, len(refs))
	seen := map[digest.Digest]bool{}
	for _, ref := range slices.Sorted(maps.Keys(refs)) {
		if desc := refs[ref]; !seen[desc.Digest] {
			seen[desc.Digest] = true
			roots = append(roots, plain(desc))
		}
	}
	return buildPredecessors(ctx, fetcher, roots)
}

// Tags lists the store's tags, sorted, after last.
func (s *Store) Tags(ctx context.Context, last string, fn func([]string) error) error {
	s.mu.Lock()
	tags := tagsIn(s.index.refs, last)
	s.mu.Unlock()
	return fn(tags)
}

// tagsIn lists the tags of refs, sorted, after last.
func tagsIn(refs map[string]ocispec.Descriptor, last string) []string {
	var tags []string
	for ref, desc := range refs {
		if ref != desc.Digest.String() && (last == "" || ref > last) {
			tags = append(tags, ref)
		}
	}
	slices.Sort(tags)
	return tags
}

// Push stores the blob expected; a manifest is listed in index.json, and
// one with a subject in the referrers index of its subject as well. A
// manifest the layout holds already is recorded as a referrer all the
// same, so that copying into a layout an older stax wrote adds what it
// lacks.
func (s *Store) Push(ctx context.Context, expected ocispec.Descriptor, r io.Reader) error {
	err := s.blobs.Push(ctx, expected, r)
	if !isManifest(expected.MediaType) || (err != nil && !errors.Is(err, errdef.ErrAlreadyExists)) {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		if err := s.indexPushed(ctx, expected); err != nil {
			return err
		}
		s.index.refs[expected.Digest.String()] = expected
		if err := s.saveIndex(); err != nil {
			return err
		}
	}
	if recErr := s.recordReferrer(ctx, expected); recErr != nil {
		return recErr
	}
	return err
}

// indexPushed adds desc, a manifest just pushed, to the graph of
// predecessors if it was built. The caller holds s.mu.
func (s *Store) indexPushed(ctx context.Context, desc ocispec.Descriptor) error {
	if s.graph == nil {
		return nil
	}
	_, err := s.graph.index(ctx, s.blobs, desc)
	return err
}

// Tag tags desc with reference, in index.json.
func (s *Store) Tag(ctx context.Context, desc ocispec.Descriptor, reference string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A save that fails (an index past MaxIndexSize) leaves index.json as
	// it was: so must it leave what this open store resolves.
	key := desc.Digest.String()
	oldTag, hadTag := s.index.refs[reference]
	oldKey, hadKey := s.index.refs[key]
	if err := s.tag(ctx, desc, reference); err != nil {
		return err
	}
	s.index.refs[key] = desc
	err := s.saveIndex()
	if err != nil {
		restoreRef(s.index.refs, key, oldKey, hadKey)
		restoreRef(s.index.refs, reference, oldTag, hadTag)
	}
	return err
}

// restoreRef puts back ref as it was before a change that was not saved.
func restoreRef(refs map[string]ocispec.Descriptor, ref string, was ocispec.Descriptor, had bool) {
	if had {
		refs[ref] = was
	} else {
		delete(refs, ref)
	}
}

// tag records reference as a tag of desc, which the store must hold, and
// leaves index.json to the caller, who holds s.mu.
func (s *Store) tag(ctx context.Context, desc ocispec.Descriptor, reference string) error {
	if reference == "" {
		return errdef.ErrMissingReference
	}
	exists, err := s.blobs.Exists(ctx, desc)
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("%s: %s: %w", desc.Digest, desc.MediaType, errdef.ErrNotFound)
	}
	s.index.refs[reference] = desc
	return nil
}

// plain is desc as oras-go resolves a digest: its media type, digest and
// size.
func plain(desc ocispec.Descriptor) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: desc.MediaType, Digest: desc.Digest, Size: desc.Size}
}

// blobPath is where the layout keeps the blob d.
func blobPath(d digest.Digest) string {
	return ocispec.ImageBlobsDir + "/" + d.Algorithm().String() + "/" + d.Encoded()
}

var _ content.ReadOnlyGraphStorage = (*Store)(nil)
