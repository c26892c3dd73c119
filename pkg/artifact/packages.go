package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// Limits on a packages layer, checked before it is read: it is a list of
// references, which no package needs megabytes or thousands of.
const (
	MaxPackagesLayerSize = 1 << 20
	MaxDependencies      = 1024
)

// readPackagesLayer reads the dependencies a packages layer lists, for a
// package whose config lists none. Other stax writers record them there
// only, by reference and kind, without a digest: each is resolved then by
// its reference, as a declaration in stax.yaml is. What the layer says is
// hostile input, refused as a package stax cannot materialize.
func readPackagesLayer(ctx context.Context, fetcher content.Fetcher, desc ocispec.Descriptor) ([]PackageRef, error) {
	refuse := func(format string, args ...any) error {
		return errdefs.Precondition(invalid("packages layer %s: "+format, append([]any{desc.Digest}, args...)...))
	}
	if desc.Size < 0 || desc.Size > MaxPackagesLayerSize {
		return nil, refuse("%d bytes, over the %d-byte limit", desc.Size, MaxPackagesLayerSize)
	}
	raw, err := content.FetchAll(ctx, fetcher, desc)
	if errors.Is(err, content.ErrMismatchedDigest) {
		return nil, errdefs.MarkDataLoss(fmt.Errorf("fetch packages layer %s: %w", desc.Digest, err))
	}
	if err != nil {
		return nil, fmt.Errorf("fetch packages layer %s: %w", desc.Digest, err)
	}
	var layer PackagesLayer
	if err := json.Unmarshal(raw, &layer); err != nil {
		return nil, refuse("not the JSON of a packages layer: %v", err)
	}
	if len(layer.Packages) > MaxDependencies {
		return nil, refuse("lists %d packages, over the limit of %d", len(layer.Packages), MaxDependencies)
	}
	for i, p := range layer.Packages {
		if err := p.check(); err != nil {
			return nil, refuse("entry %d: %v", i+1, err)
		}
	}
	return layer.Packages, nil
}

// check refuses a dependency record that could not be resolved safely. A
// directory is let through: the resolver refuses it with the fix (publish
// it), while inspect can still show the package.
func (p PackageRef) check() error {
	if p.Ref == "" {
		return fmt.Errorf("a package without a reference")
	}
	if p.Kind != "" && p.Kind != KindPackage {
		return fmt.Errorf("%s is of kind %q; stax depends on packages only (%q)", p.Ref, p.Kind, KindPackage)
	}
	if p.Digest != "" {
		if err := p.Digest.Validate(); err != nil {
			return fmt.Errorf("%s: digest %q: %v", p.Ref, p.Digest, err)
		}
	}
	d, err := declaration.Parse(p.Ref, declaration.Where{})
	if err != nil {
		return err
	}
	ref := d.Ref
	switch d.Kind {
	case declaration.Directory:
		return nil
	case declaration.Layout:
		return fmt.Errorf("%s names a directory of the machine that installs it, not a published package", p.Ref)
	}
	if !d.IsRemote() {
		// Without a host, a reference is a tag of the installing machine's
		// local store: a published package must not reach into it.
		return fmt.Errorf("%s names no registry: a published package depends on packages by their registry, e.g. ghcr.io/%s", p.Ref, p.Ref)
	}
	if ref.Digest != "" && p.Digest != "" && ref.Digest != p.Digest {
		return fmt.Errorf("%s is listed with the digest %s", p.Ref, p.Digest)
	}
	return nil
}
