package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// A layout records the referrers of each manifest (signatures, SBOMs) as
// a registry without the referrers API does, in the referrers tag schema
// of the OCI distribution spec: an image index tagged sha256-<hex of the
// subject> lists them. oras-go finds referrers in a layout by reading
// every manifest; regctl, and tools built on regclient, read that index
// alone. A Store keeps it whenever a manifest with a subject is pushed.

// ReferrersTag is the tag of the referrers tag schema that lists the
// referrers of the manifest subject: its algorithm, a dash, and its hex,
// each cut to the length the schema allows.
func ReferrersTag(subject digest.Digest) string {
	alg, hex := subject.Algorithm().String(), subject.Encoded()
	return alg[:min(len(alg), 32)] + "-" + hex[:min(len(hex), 64)]
}

// recordReferrer rewrites the referrers index of the subject of desc, a
// manifest just pushed, if it has one. The index lists what the layout
// holds that refers to the subject, found in its manifests as oras-go finds
// them, so a layout an older stax wrote, with referrers and no index, has
// them all listed from the next referrer on. The caller holds s.mu.
func (s *Store) recordReferrer(ctx context.Context, desc ocispec.Descriptor) error {
	subject, err := s.subjectOf(ctx, desc)
	if err != nil || subject == nil {
		return err
	}
	found, err := registry.Referrers(ctx, lockedStore{s}, *subject, "")
	if err != nil {
		return errdefs.MarkLocal(fmt.Errorf("list the referrers of %s in %s: %w", subject.Digest, s.Dir, err))
	}
	// Sorted by digest, so the same referrers give the same index
	// whatever order a copy pushed them in; each as the referrers API
	// lists it.
	index := ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}}
	for _, d := range found {
		index.Manifests = append(index.Manifests, ocispec.Descriptor{
			MediaType: d.MediaType, ArtifactType: d.ArtifactType, Digest: d.Digest, Size: d.Size, Annotations: d.Annotations,
		})
	}
	slices.SortFunc(index.Manifests, func(a, b ocispec.Descriptor) int { return strings.Compare(string(a.Digest), string(b.Digest)) })
	index.Manifests = slices.CompactFunc(index.Manifests, func(a, b ocispec.Descriptor) bool { return a.Digest == b.Digest })
	data, err := json.Marshal(index)
	if err != nil {
		return err
	}
	newDesc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageIndex, data)
	tag := ReferrersTag(subject.Digest)
	old, listed := s.index.refs[tag]
	if listed && old.Digest == newDesc.Digest {
		return nil
	}
	err = s.blobs.Push(ctx, newDesc, bytes.NewReader(data))
	if err == nil {
		err = s.indexPushed(ctx, newDesc)
	}
	if err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return errdefs.MarkLocal(fmt.Errorf("write the referrers index of %s: %w", subject.Digest, err))
	}
	if err := s.tag(ctx, newDesc, tag); err != nil {
		return errdefs.MarkLocal(fmt.Errorf("tag the referrers index of %s: %w", subject.Digest, err))
	}
	if err := s.saveIndex(); err != nil {
		return err
	}
	if listed {
		s.dropReferrersIndex(ctx, old)
	}
	return nil
}

// subjectOf returns the subject of the manifest desc, or nil when it has
// none (or is no manifest a registry would accept).
func (s *Store) subjectOf(ctx context.Context, desc ocispec.Descriptor) (*ocispec.Descriptor, error) {
	if desc.Size > maxManifestSize {
		// Larger than any registry accepts: no referrer anyone lists.
		return nil, nil
	}
	raw, err := content.FetchAll(ctx, s.blobs, desc)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("read manifest %s: %w", desc.Digest, err))
	}
	var m struct {
		Subject *ocispec.Descriptor `json:"subject"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Subject == nil || m.Subject.Digest.Validate() != nil || !isManifest(m.Subject.MediaType) {
		return nil, nil
	}
	return &ocispec.Descriptor{MediaType: m.Subject.MediaType, Digest: m.Subject.Digest, Size: m.Subject.Size}, nil
}

// dropReferrersIndex removes a referrers index that a new one replaced,
// from index.json and from the blobs, unless a tag still names it; the
// manifests it lists stay, listed by the new one. What is left of it if
// removing fails is an unnamed blob, which nothing reads. The caller
// holds s.mu.
func (s *Store) dropReferrersIndex(ctx context.Context, old ocispec.Descriptor) {
	for ref, d := range s.index.refs {
		if d.Digest == old.Digest && ref != old.Digest.String() {
			return
		}
	}
	if _, ok := s.index.refs[old.Digest.String()]; ok {
		delete(s.index.refs, old.Digest.String())
		if s.saveIndex() != nil {
			return
		}
	}
	if s.graph != nil {
		s.graph.remove(old)
	}
	_ = s.blobs.Delete(ctx, old)
}

// lockedStore is the store seen by one who holds its lock, s.mu.
type lockedStore struct{ s *Store }

func (l lockedStore) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	return l.s.blobs.Fetch(ctx, desc)
}

func (l lockedStore) Exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	return l.s.blobs.Exists(ctx, desc)
}

func (l lockedStore) Predecessors(ctx context.Context, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	return l.s.predecessors(ctx, node)
}

// referrersIndexes are the manifests that tags of the referrers tag
// schema name in refs, which maps tags to descriptors.
func referrersIndexes(refs map[string]ocispec.Descriptor) map[digest.Digest]bool {
	out := map[digest.Digest]bool{}
	for ref, d := range refs {
		if d.MediaType == ocispec.MediaTypeImageIndex && isReferrersTag(ref) {
			out[d.Digest] = true
		}
	}
	return out
}

// isReferrersTag says whether tag has the form ReferrersTag gives: an
// algorithm, a dash and a digest's hex (cosign's sha256-<hex>.sig is not
// one).
func isReferrersTag(tag string) bool {
	alg, hex, ok := strings.Cut(tag, "-")
	return ok && digest.NewDigestFromEncoded(digest.Algorithm(alg), hex).Validate() == nil
}

// withoutReferrersIndexes drops from preds the referrers indexes: they
// record the referrers for tools that read the tag schema, and hold
// nothing of their own that a copy of a manifest's graph would carry.
func withoutReferrersIndexes(preds []ocispec.Descriptor, indexes func() map[digest.Digest]bool) []ocispec.Descriptor {
	if !slices.ContainsFunc(preds, func(d ocispec.Descriptor) bool { return d.MediaType == ocispec.MediaTypeImageIndex }) {
		return preds
	}
	skip := indexes()
	return slices.DeleteFunc(slices.Clone(preds), func(d ocispec.Descriptor) bool { return skip[d.Digest] })
}
