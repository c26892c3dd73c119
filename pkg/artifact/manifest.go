package artifact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/layers"
)

// SkillsLayer describes a skills layer blob for a manifest.
func SkillsLayer(res layers.WriteResult, skillCount int) ocispec.Descriptor {
	return ocispec.Descriptor{
		MediaType: layers.MediaTypeSkills,
		Digest:    res.Digest,
		Size:      res.Size,
		Annotations: map[string]string{
			AnnotationTitle:              layers.SkillsLayerTitle,
			layers.AnnotationSkillsCount: strconv.Itoa(skillCount),
		},
	}
}

// PushPackagesLayer pushes the packages layer listing deps, in canonical
// JSON, and returns its descriptor.
func PushPackagesLayer(ctx context.Context, pusher content.Pusher, deps []PackageRef) (ocispec.Descriptor, error) {
	data, err := Canonical(PackagesLayer{Packages: deps, SpecVersion: SpecVersion})
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	desc := content.NewDescriptorFromBytes(MediaTypePackages, data)
	if err := pushBytes(ctx, pusher, desc, data); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("push packages layer: %w", err)
	}
	return desc, nil
}

// PackManifest pushes cfg and the manifest of a package whose layers are
// already in pusher, and returns the descriptors of the manifest and of
// the config. The same inputs always give the same manifest digest.
func PackManifest(ctx context.Context, pusher content.Pusher, cfg *Config, layerDescs []ocispec.Descriptor, created time.Time) (manifest, config ocispec.Descriptor, err error) {
	return PackManifestAnnotated(ctx, pusher, cfg, layerDescs, created, nil)
}

// PackManifestAnnotated is PackManifest with extra manifest annotations
// (the source and revision of a package built from a repository); they
// cannot replace the ones PackManifest writes.
func PackManifestAnnotated(ctx context.Context, pusher content.Pusher, cfg *Config, layerDescs []ocispec.Descriptor, created time.Time, extra map[string]string) (manifest, config ocispec.Descriptor, err error) {
	cfgBytes, err := cfg.MarshalCanonical()
	if err != nil {
		return ocispec.Descriptor{}, ocispec.Descriptor{}, err
	}
	cfgDesc := content.NewDescriptorFromBytes(MediaTypeConfig, cfgBytes)
	if err := pushBytes(ctx, pusher, cfgDesc, cfgBytes); err != nil {
		return ocispec.Descriptor{}, ocispec.Descriptor{}, fmt.Errorf("push config: %w", err)
	}
	annotations := map[string]string{
		AnnotationCreated:     created.UTC().Format(time.RFC3339),
		AnnotationVersion:     cfg.Version,
		AnnotationTitle:       cfg.Name,
		AnnotationSpecVersion: SpecVersion,
	}
	if cfg.Description != "" {
		annotations[AnnotationDescription] = cfg.Description
	}
	if cfg.Author != "" {
		annotations[AnnotationVendor] = cfg.Author
	}
	for k, v := range extra {
		if _, set := annotations[k]; !set {
			annotations[k] = v
		}
	}
	// With no layers oras uses the OCI empty descriptor as the only layer,
	// which is what the specification asks of an empty artifact.
	desc, err := oras.PackManifest(ctx, pusher, oras.PackManifestVersion1_1, ArtifactTypePackage, oras.PackManifestOptions{
		Layers:              layerDescs,
		ConfigDescriptor:    &cfgDesc,
		ManifestAnnotations: annotations,
	})
	if err != nil {
		return ocispec.Descriptor{}, ocispec.Descriptor{}, fmt.Errorf("pack manifest: %w", err)
	}
	return desc, cfgDesc, nil
}

func pushBytes(ctx context.Context, pusher content.Pusher, desc ocispec.Descriptor, data []byte) error {
	if storage, ok := pusher.(content.ReadOnlyStorage); ok {
		if exists, err := storage.Exists(ctx, desc); err == nil && exists {
			return nil
		}
	}
	err := pusher.Push(ctx, desc, bytes.NewReader(data))
	if errors.Is(err, errdef.ErrAlreadyExists) {
		return nil
	}
	return err
}
