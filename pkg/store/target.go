package store

import (
	"context"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Fetch reads the blob desc.
func (s *Store) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	return s.layout.Fetch(ctx, desc)
}

// Exists says whether the blob desc is in the store.
func (s *Store) Exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	return s.layout.Exists(ctx, desc)
}

// Resolve returns the descriptor a tag or digest names.
func (s *Store) Resolve(ctx context.Context, reference string) (ocispec.Descriptor, error) {
	return s.layout.Resolve(ctx, reference)
}

// Predecessors returns the manifests that refer to node.
func (s *Store) Predecessors(ctx context.Context, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	return s.layout.Predecessors(ctx, node)
}

// Tags lists the store's tags, sorted, after last.
func (s *Store) Tags(ctx context.Context, last string, fn func([]string) error) error {
	return s.layout.Tags(ctx, last, fn)
}

// Push stores the blob expected; a manifest is listed in index.json.
func (s *Store) Push(ctx context.Context, expected ocispec.Descriptor, r io.Reader) error {
	if err := s.layout.Push(ctx, expected, r); err != nil {
		return err
	}
	if !isManifest(expected.MediaType) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index.refs[expected.Digest.String()] = expected
	return s.saveIndex()
}

// Tag tags desc with reference, in index.json.
func (s *Store) Tag(ctx context.Context, desc ocispec.Descriptor, reference string) error {
	if err := s.layout.Tag(ctx, desc, reference); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index.refs[desc.Digest.String()] = desc
	s.index.refs[reference] = desc
	return s.saveIndex()
}
