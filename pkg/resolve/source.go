package resolve

import (
	"context"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/target"
)

// Source is where Resolve finds packages: registries, oci: layouts and
// the local store as one, in the manner of oras-go's content interfaces.
// Every package Resolve reads, it opens through a Source, and through the
// targets it opens it lists tags, resolves a tag or digest to a manifest,
// and reads manifests, configs and layers; what the Source keeps of them
// (the local store) is its own business. pkg/cache implements it over a
// target.Opener; Resolve stores nothing itself.
type Source interface {
	// Open opens the registry repository or oci: layout ref names, for
	// reading only.
	Open(ctx context.Context, ref reference.Reference) (*target.Target, error)
	// OpenPinned opens the registry repository of ref, a reference pinned
	// by digest, reading the package from the local store when it holds
	// it: a digest names the same bytes wherever they are.
	OpenPinned(ctx context.Context, ref reference.Reference) (*target.Target, error)
	// LookupStored finds ref, a name without a registry host, among the
	// local store's tags, and opens it there; a failure says what the
	// store holds instead. The target is open only when err is nil.
	LookupStored(ctx context.Context, ref reference.Reference) (*target.Target, ocispec.Descriptor, error)
	// FetchLayer starts keeping layer, the skills layer of a package read
	// from t, in the local store ahead of the graph's being stored (see
	// Options.FetchLayers), and returns a channel closed once that has
	// ended; nil when it keeps nothing so, or started that layer already.
	// It only saves work: a fetch that fails, or is stopped when ctx is
	// done, leaves nothing kept.
	FetchLayer(ctx context.Context, t *target.Target, layer ocispec.Descriptor) <-chan struct{}
	// OpenBuilt has build write a package built from a directory into a
	// temporary layout, in a scratch directory named after name, and
	// opens it there; closing the target removes the layout.
	OpenBuilt(ctx context.Context, name string, build func(content.Pusher) (ocispec.Descriptor, error)) (*target.Target, error)
}
