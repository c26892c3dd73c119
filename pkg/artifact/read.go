package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// MaxMetadataSize bounds manifests and configs read from a store, which may
// be a hostile registry: anything larger is refused before it is fetched.
const MaxMetadataSize = 4 << 20

// ErrInvalidPackage is wrapped by every error about what a package says, as
// opposed to failures to fetch it.
var ErrInvalidPackage = errors.New("invalid package")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidPackage}, args...)...)
}

// Package is a stax package read from a store.
type Package struct {
	Descriptor ocispec.Descriptor
	Manifest   ocispec.Manifest
	Config     *Config
	// Skills is the skills layer, nil for a package without skills.
	Skills *ocispec.Descriptor
	// Notices say where the package departs from what stax writes but can
	// still be read, e.g. a package labelled as an agent.
	Notices []string
}

// Fetch reads and checks the manifest and config of the package at desc.
func Fetch(ctx context.Context, fetcher content.Fetcher, desc ocispec.Descriptor) (*Package, error) {
	return fetch(ctx, fetcher, desc, nil, ocispec.Descriptor{})
}

// FetchBuilt is Fetch for a package the caller has just built, whose
// config is cfg, encoded as the blob cfgDesc: the manifest is read, and cfg
// is checked as Fetch checks the config it reads, rather than read back and
// decoded a second time (the config of a large library is megabytes).
func FetchBuilt(ctx context.Context, fetcher content.Fetcher, desc ocispec.Descriptor, cfg *Config, cfgDesc ocispec.Descriptor) (*Package, error) {
	return fetch(ctx, fetcher, desc, cfg, cfgDesc)
}

// fetch is Fetch, or FetchBuilt when built is set.
func fetch(ctx context.Context, fetcher content.Fetcher, desc ocispec.Descriptor, built *Config, builtDesc ocispec.Descriptor) (*Package, error) {
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return nil, invalid("%s is a %q, not an OCI image manifest", desc.Digest, desc.MediaType)
	}
	raw, err := fetchSmall(ctx, fetcher, desc)
	if err != nil {
		return nil, fmt.Errorf("fetch manifest %s: %w", desc.Digest, err)
	}
	pkg, err := readManifest(desc, raw)
	if err != nil {
		return nil, err
	}
	m := pkg.Manifest
	if built != nil {
		if m.Config.Digest != builtDesc.Digest || m.Config.Size != builtDesc.Size {
			return nil, invalid("%s names config %s (%d bytes), not the one built, %s (%d bytes)", desc.Digest, m.Config.Digest, m.Config.Size, builtDesc.Digest, builtDesc.Size)
		}
		if err := built.check(); err != nil {
			return nil, invalid("config %s: %w", m.Config.Digest, err)
		}
		pkg.Config = built
	} else {
		cfgBytes, err := fetchSmall(ctx, fetcher, m.Config)
		if err != nil {
			return nil, fmt.Errorf("fetch config %s: %w", m.Config.Digest, err)
		}
		if pkg.Config, err = ParseConfig(cfgBytes); err != nil {
			return nil, invalid("config %s: %w", m.Config.Digest, err)
		}
	}
	if pkg.Config.Kind == KindAgent {
		pkg.Notices = append(pkg.Notices, fmt.Sprintf("%s has a config of kind %q; reading its skills layer", desc.Digest, KindAgent))
	}
	skills, packagesLayer, err := findLayers(desc.Digest, m)
	if err != nil {
		return nil, err
	}
	pkg.Skills = skills
	if packagesLayer != nil && len(pkg.Config.Packages) == 0 {
		if pkg.Config.Packages, err = readPackagesLayer(ctx, fetcher, *packagesLayer); err != nil {
			return nil, err
		}
		if n := unpinned(pkg.Config.Packages); n > 0 {
			pkg.Notices = append(pkg.Notices, fmt.Sprintf("%s lists its dependencies in its packages layer only, %d of them without a digest: resolving them by their references", desc.Digest, n))
		}
	}
	if pkg.Skills == nil && len(pkg.Config.Skills) > 0 {
		return nil, invalid("%s lists %d skills in its config but has no skills layer", desc.Digest, len(pkg.Config.Skills))
	}
	return pkg, nil
}

// readManifest decodes raw, the manifest desc names, and checks that it
// is a stax package's: by its artifact type, or the config's media type
// where it has none.
func readManifest(desc ocispec.Descriptor, raw []byte) (*Package, error) {
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, invalid("manifest %s is not valid JSON: %w", desc.Digest, err)
	}
	pkg := &Package{Descriptor: desc, Manifest: m}
	switch m.ArtifactType {
	case ArtifactTypePackage:
	case "":
		// OCI 1.1: without artifactType, the config media type is the
		// artifact's type (oras push --image-spec v1.0 writes these).
		if m.Config.MediaType != MediaTypeConfig {
			return nil, invalid("%s has no artifactType and config media type %q: not a stax package (%s)", desc.Digest, m.Config.MediaType, ArtifactTypePackage)
		}
	case ArtifactTypeAgent:
		pkg.Notices = append(pkg.Notices, fmt.Sprintf("%s is labelled %s; reading it as a package", desc.Digest, ArtifactTypeAgent))
	default:
		return nil, invalid("%s has artifactType %q, not a stax package (%s)", desc.Digest, m.ArtifactType, ArtifactTypePackage)
	}
	if m.Config.MediaType != MediaTypeConfig {
		return nil, invalid("%s has config media type %q, want %s", desc.Digest, m.Config.MediaType, MediaTypeConfig)
	}
	return pkg, nil
}

// findLayers finds the skills layer and the packages layer among the
// layers of m, the manifest d; either may be nil. More than one of either
// is refused.
func findLayers(d digest.Digest, m ocispec.Manifest) (skills, packages *ocispec.Descriptor, err error) {
	for i := range m.Layers {
		switch m.Layers[i].MediaType {
		case layers.MediaTypeSkills:
			if skills != nil {
				return nil, nil, invalid("%s has more than one skills layer", d)
			}
			skills = &m.Layers[i]
		case MediaTypePackages:
			if packages != nil {
				return nil, nil, errdefs.Precondition(invalid("%s has more than one packages layer", d))
			}
			packages = &m.Layers[i]
		}
	}
	return skills, packages, nil
}

// PeekManifest reads raw, the manifest desc names, as Fetch reads a
// package's manifest, without fetching its config, which the result does
// not hold: to fetch the skills layer while the config is fetched and
// checked. ok is false for what Fetch would refuse at this point.
func PeekManifest(desc ocispec.Descriptor, raw []byte) (pkg *Package, ok bool) {
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return nil, false
	}
	pkg, err := readManifest(desc, raw)
	if err != nil {
		return nil, false
	}
	if pkg.Skills, _, err = findLayers(desc.Digest, pkg.Manifest); err != nil {
		return nil, false
	}
	return pkg, true
}

// fetchSmall reads a blob that must fit in memory, verifying size and digest.
func fetchSmall(ctx context.Context, fetcher content.Fetcher, desc ocispec.Descriptor) ([]byte, error) {
	if desc.Size < 0 || desc.Size > MaxMetadataSize {
		return nil, invalid("size %d is over the %d-byte limit for manifests and configs", desc.Size, MaxMetadataSize)
	}
	rc, err := fetcher.Fetch(ctx, desc)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// Read through VerifyReader, whose mismatch names the blob (see
	// MismatchError): the local store drops its copy by it.
	buf := bytes.NewBuffer(make([]byte, 0, desc.Size))
	if _, err := buf.ReadFrom(VerifyReader(rc, desc)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// OpenSkills returns a verified stream of the skills layer (see
// VerifyReader), or nil when the package has none. The caller closes it.
func (p *Package) OpenSkills(ctx context.Context, fetcher content.Fetcher) (io.ReadCloser, error) {
	if p.Skills == nil {
		return nil, nil
	}
	rc, err := fetcher.Fetch(ctx, *p.Skills)
	if err != nil {
		return nil, fmt.Errorf("fetch skills layer %s: %w", p.Skills.Digest, err)
	}
	return VerifyReader(rc, *p.Skills), nil
}

// unpinned counts the dependencies listed without a digest.
func unpinned(deps []PackageRef) int {
	n := 0
	for _, d := range deps {
		if d.Digest == "" {
			n++
		}
	}
	return n
}
