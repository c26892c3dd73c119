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

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
)

// Media types of a signature referrer.
const (
	// MediaTypeSigstoreBundle is the artifact and layer type of a
	// signature: a Sigstore bundle attached as cosign v3 attaches its own,
	// so that cosign and the policy controllers built on it find it.
	MediaTypeSigstoreBundle = "application/vnd.dev.sigstore.bundle.v0.3+json"

	// ArtifactType, MediaTypeConfig and MediaTypePayload are the types
	// of the signatures stax wrote before it attached them as cosign does:
	// an artifact of its own type whose config records the signer and
	// whose one layer is the bundle. Verify still reads them.
	ArtifactType     = "application/vnd.stax.signature.v1"
	MediaTypeConfig  = "application/vnd.stax.signature.config.v1+json"
	MediaTypePayload = "application/vnd.stax.signature.payload.v1"
)

// Annotations cosign puts on a bundle referrer's manifest: what the bundle
// holds, and the predicate type of the statement it signs, so that a
// reader can choose among referrers without fetching every bundle.
const (
	AnnotationBundleContent       = "dev.sigstore.bundle.content"
	AnnotationBundlePredicateType = "dev.sigstore.bundle.predicateType"
	// BundleContentDSSE says the bundle holds a DSSE envelope.
	BundleContentDSSE = "dsse-envelope"
)

// Config is who signed a package, when, and with what. A signature
// records it in its signed statement (see Provenance); signatures of the
// older stax format also carry it, unsigned, as their config blob, which
// Verify checks against the statement.
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
	// Limits bound the skills layer read to list the files; the zero
	// value is the defaults.
	layers.Limits
}

// Signed is a signature attached to a package.
type Signed struct {
	// Descriptor is the signature referrer's manifest.
	Descriptor ocispec.Descriptor
	Config     Config
}

// Sign signs the package at desc in t and attaches the signature to it as
// a referrer, as cosign v3 attaches a signature: an artifact of type
// MediaTypeSigstoreBundle with the empty config and one layer, the
// Sigstore bundle, whose DSSE envelope signs the stax statement (the
// package and the digest of every file of every skill). cosign verify
// accepts it as a signature of the manifest, and cosign verify-attestation
// --type PredicateType as an attestation of its content. t is a registry
// repository (with or without the referrers API: oras-go keeps the
// referrers tag schema where there is none), an OCI layout, or the local
// store.
func Sign(ctx context.Context, t oras.GraphTarget, desc ocispec.Descriptor, signer Signer, opts SignOptions) (*Signed, error) {
	pkg, err := artifact.Fetch(ctx, t, desc)
	if err != nil {
		return nil, err
	}
	skills, err := Contents(ctx, t, pkg, opts.Limits)
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
	bundleDesc := content.NewDescriptorFromBytes(MediaTypeSigstoreBundle, bundleJSON)
	if err := t.Push(ctx, bundleDesc, bytes.NewReader(bundleJSON)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return nil, fmt.Errorf("push signature blob: %w", err)
	}
	subject := ocispec.Descriptor{MediaType: desc.MediaType, Digest: desc.Digest, Size: desc.Size}
	// With no config descriptor, oras-go writes the empty config, as cosign
	// does.
	sigDesc, err := oras.PackManifest(ctx, t, oras.PackManifestVersion1_1, MediaTypeSigstoreBundle, oras.PackManifestOptions{
		Subject: &subject,
		Layers:  []ocispec.Descriptor{bundleDesc},
		ManifestAnnotations: map[string]string{
			ocispec.AnnotationCreated:     cfg.SignedAt,
			AnnotationBundleContent:       BundleContentDSSE,
			AnnotationBundlePredicateType: PredicateType,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("push signature manifest: %w", err)
	}
	return &Signed{Descriptor: sigDesc, Config: cfg}, nil
}
