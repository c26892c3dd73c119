package transfer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/target"
)

// Docker's media types, which registries and crane still serve for images.
const (
	mediaTypeDockerManifest     = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerManifestList = "application/vnd.docker.distribution.manifest.list.v2+json"
)

// maxIndexDepth bounds indexes within indexes: ko and buildx write one
// level, and a hostile registry must not make a copy recurse forever.
const maxIndexDepth = 4

// Kinds of artifact a Result describes.
const (
	KindPackage       = "stax package"
	KindImageIndex    = "image index"
	KindImageManifest = "image manifest"
)

// Image describes an image index or manifest that is not a stax package,
// copied with Options.AnyArtifact.
type Image struct {
	// Kind is KindImageIndex or KindImageManifest.
	Kind string
	// ArtifactType is the manifest's artifactType, or its config's media
	// type for an image manifest without one.
	ArtifactType string
	// Platforms are the os/architecture[/variant] of an index's manifests
	// that name one, in the index's order.
	Platforms []string
	// Manifests counts the manifests the index lists.
	Manifests int
}

// imageGraph is the vetted graph of an image: the successors of every
// manifest and index in it, read and checked before any blob moves.
type imageGraph struct {
	image      *Image
	successors map[digest.Digest][]ocispec.Descriptor
	budget     *sizeBudget
	// seen counts a blob shared by several platforms once.
	seen map[digest.Digest]bool
}

// vetImage reads the index or manifest at desc and, for an index, every
// manifest it lists, checking each descriptor's digest and the sum of
// the sizes against maxSize, before any layer is fetched. A manifest's
// subject is not followed: what it refers to is not part of the copy.
func vetImage(ctx context.Context, src *target.Target, desc ocispec.Descriptor, maxSize int64) (*imageGraph, error) {
	g := &imageGraph{
		successors: map[digest.Digest][]ocispec.Descriptor{},
		budget:     &sizeBudget{limit: limit(maxSize)},
		seen:       map[digest.Digest]bool{},
	}
	g.seen[desc.Digest] = true
	if err := g.vet(ctx, src, desc, 0); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *imageGraph) vet(ctx context.Context, src *target.Target, desc ocispec.Descriptor, depth int) error {
	if err := desc.Digest.Validate(); err != nil {
		return errdefs.Invalid(fmt.Errorf("%s: a descriptor has digest %q: %w", src.Name(), desc.Digest, err))
	}
	if _, done := g.successors[desc.Digest]; done {
		return nil
	}
	switch desc.MediaType {
	case ocispec.MediaTypeImageIndex, mediaTypeDockerManifestList:
		if depth >= maxIndexDepth {
			return errdefs.Invalid(fmt.Errorf("%s: indexes nest more than %d deep at %s", src.Name(), maxIndexDepth, desc.Digest))
		}
		var index ocispec.Index
		if err := fetchJSON(ctx, src, desc, &index); err != nil {
			return err
		}
		if depth == 0 {
			g.image = &Image{Kind: KindImageIndex, ArtifactType: index.ArtifactType, Manifests: len(index.Manifests)}
			for _, m := range index.Manifests {
				if p := m.Platform; p != nil && p.OS != "" && p.OS != "unknown" {
					g.image.Platforms = append(g.image.Platforms, platformString(p))
				}
			}
		}
		if err := g.add(src, desc, index.Manifests); err != nil {
			return err
		}
		for _, m := range index.Manifests {
			if err := g.vet(ctx, src, m, depth+1); err != nil {
				return err
			}
		}
		return nil
	case ocispec.MediaTypeImageManifest, mediaTypeDockerManifest:
		var m ocispec.Manifest
		if err := fetchJSON(ctx, src, desc, &m); err != nil {
			return err
		}
		if depth == 0 {
			g.image = &Image{Kind: KindImageManifest, ArtifactType: m.ArtifactType}
			if m.ArtifactType == "" {
				g.image.ArtifactType = m.Config.MediaType
			}
		}
		succ := append([]ocispec.Descriptor{m.Config}, m.Layers...)
		if err := g.add(src, desc, succ); err != nil {
			return err
		}
		for _, s := range succ {
			if err := s.Digest.Validate(); err != nil {
				return errdefs.Invalid(fmt.Errorf("%s: manifest %s has a blob with digest %q: %w", src.Name(), desc.Digest, s.Digest, err))
			}
		}
		return nil
	}
	return errdefs.Invalid(fmt.Errorf("%s: %s is a %q, neither an image index nor an image manifest", src.Name(), desc.Digest, desc.MediaType))
}

// add records the successors of the node desc, counting each blob not
// seen before against the size budget.
func (g *imageGraph) add(src *target.Target, desc ocispec.Descriptor, succ []ocispec.Descriptor) error {
	for _, s := range succ {
		if g.seen[s.Digest] {
			continue
		}
		g.seen[s.Digest] = true
		if err := g.budget.add(s); err != nil {
			return errdefs.Invalid(fmt.Errorf("%s: its blobs %w", src.Name(), err))
		}
	}
	g.successors[desc.Digest] = slices.Clone(succ)
	return nil
}

// fetchJSON reads the manifest or index desc, bounded in size and checked
// against its digest, into v.
func fetchJSON(ctx context.Context, src *target.Target, desc ocispec.Descriptor, v any) error {
	if desc.Size < 0 || desc.Size > artifact.MaxMetadataSize {
		return errdefs.Invalid(fmt.Errorf("%s: manifest %s claims %d bytes, over the %d-byte limit for manifests", src.Name(), desc.Digest, desc.Size, artifact.MaxMetadataSize))
	}
	raw, err := content.FetchAll(ctx, src, desc)
	if err != nil {
		return src.Explain(fmt.Errorf("fetch manifest %s: %w", desc.Digest, err))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return errdefs.Invalid(fmt.Errorf("%s: manifest %s is not valid JSON: %w", src.Name(), desc.Digest, err))
	}
	return nil
}

func platformString(p *ocispec.Platform) string {
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}
