package signature

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/pkg/artifact"
)

// Media types of a stax signature referrer.
const (
	ArtifactType     = "application/vnd.stax.signature.v1"
	MediaTypeConfig  = "application/vnd.stax.signature.config.v1+json"
	MediaTypePayload = "application/vnd.stax.signature.payload.v1"
	// MediaTypeSigstoreBundle is the artifact and layer type of the
	// Sigstore bundles cosign attaches as referrers.
	MediaTypeSigstoreBundle = "application/vnd.dev.sigstore.bundle.v0.3+json"
)

// Config is the config blob of a signature referrer. It is not signed
// itself: Verify checks each field against the signed statement.
type Config struct {
	SpecVersion string `json:"specVersion"`
	Signer      string `json:"signer"`
	SignedAt    string `json:"signedAt"`
	Algorithm   string `json:"algorithm"`
}

// SignOptions control Sign.
type SignOptions struct {
	// Name is the statement's subject name, e.g. the package reference;
	// the package name when empty.
	Name string
	// Now is the signing time; the current time when zero.
	Now time.Time
	// MaxSize bounds the skills layer read to list the files; see
	// layers.ReadOptions.
	MaxSize int64
}

// Signed is a signature attached to a package.
type Signed struct {
	// Descriptor is the signature referrer's manifest.
	Descriptor ocispec.Descriptor
	Config     Config
}

// Sign signs the package at desc in t and attaches the signature to it as
// a referrer. t is a registry repository (with or without the referrers
// API), an OCI layout, or the local store.
func Sign(ctx context.Context, t oras.GraphTarget, desc ocispec.Descriptor, signer Signer, opts SignOptions) (*Signed, error) {
	pkg, err := artifact.Fetch(ctx, t, desc)
	if err != nil {
		return nil, err
	}
	skills, err := Contents(ctx, t, pkg, opts.MaxSize)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	cfg := Config{
		SpecVersion: artifact.SpecVersion,
		Signer:      signer.ID(),
		SignedAt:    now.UTC().Format(time.RFC3339),
		Algorithm:   signer.Algorithm(),
	}
	name := opts.Name
	if name == "" {
		name = pkg.Config.Name
	}
	statement, err := newStatement(name, desc, &Provenance{
		Name: pkg.Config.Name, Version: pkg.Config.Version, Skills: skills,
		Signer: cfg.Signer, SignedAt: cfg.SignedAt, Algorithm: cfg.Algorithm,
	})
	if err != nil {
		return nil, err
	}
	pb, err := signer.SignDSSE(ctx, PayloadTypeInToto, statement)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", desc.Digest, err)
	}
	bundleJSON, err := (&bundle.Bundle{Bundle: pb}).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode Sigstore bundle: %w", err)
	}
	cfgJSON, err := artifact.Canonical(cfg)
	if err != nil {
		return nil, err
	}
	cfgDesc := content.NewDescriptorFromBytes(MediaTypeConfig, cfgJSON)
	payloadDesc := content.NewDescriptorFromBytes(MediaTypePayload, bundleJSON)
	for _, b := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{cfgDesc, cfgJSON}, {payloadDesc, bundleJSON}} {
		if err := t.Push(ctx, b.desc, bytes.NewReader(b.data)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
			return nil, fmt.Errorf("push signature blob: %w", err)
		}
	}
	subject := ocispec.Descriptor{MediaType: desc.MediaType, Digest: desc.Digest, Size: desc.Size}
	sigDesc, err := oras.PackManifest(ctx, t, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
		Subject:             &subject,
		ConfigDescriptor:    &cfgDesc,
		Layers:              []ocispec.Descriptor{payloadDesc},
		ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: cfg.SignedAt},
	})
	if err != nil {
		return nil, fmt.Errorf("push signature manifest: %w", err)
	}
	return &Signed{Descriptor: sigDesc, Config: cfg}, nil
}
