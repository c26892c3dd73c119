package store

import (
	"context"
	"errors"
	"io"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
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

// Predecessors returns the manifests that refer to node, but for the
// referrers indexes the store keeps (see recordReferrer).
func (s *Store) Predecessors(ctx context.Context, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	preds, err := s.layout.Predecessors(ctx, node)
	if err != nil {
		return nil, err
	}
	return withoutReferrersIndexes(preds, func() map[digest.Digest]bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return referrersIndexes(s.index.refs)
	}), nil
}

// Tags lists the store's tags, sorted, after last.
func (s *Store) Tags(ctx context.Context, last string, fn func([]string) error) error {
	return s.layout.Tags(ctx, last, fn)
}

// Push stores the blob expected; a manifest is listed in index.json, and
// one with a subject in the referrers index of its subject as well. A
// manifest the layout holds already is recorded as a referrer all the
// same, so that copying into a layout an older stax wrote adds what it
// lacks.
func (s *Store) Push(ctx context.Context, expected ocispec.Descriptor, r io.Reader) error {
	err := s.layout.Push(ctx, expected, r)
	if !isManifest(expected.MediaType) || (err != nil && !errors.Is(err, errdef.ErrAlreadyExists)) {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
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
