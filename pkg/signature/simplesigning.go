package signature

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/payload"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/pkg/artifact"
)

// Cosign's tag-based signatures are what cosign v1 and v2 write, and cosign
// v3 with --new-bundle-format=false: an image manifest tagged after the
// signed manifest (see SimpleSigningTag) in its repository, each layer a
// simple-signing payload naming the signed manifest's digest, with the
// base64 signature over the payload's bytes in a layer annotation. They
// are not referrers, so Verify looks the tag up after the referrers.
const (
	// MediaTypeSimpleSigning is the layer type of a tag-based signature.
	MediaTypeSimpleSigning = "application/vnd.dev.cosign.simplesigning.v1+json"
	// FormatSimpleSigning is the Format of a verified tag-based signature.
	FormatSimpleSigning = "cosign-simplesigning"

	annotationCosignSignature   = "dev.cosignproject.cosign/signature"
	annotationCosignCertificate = "dev.sigstore.cosign/certificate"
	mediaTypeDockerManifest     = "application/vnd.docker.distribution.manifest.v2+json"
)

// SimpleSigningTag is the tag cosign stores the tag-based signatures of
// the manifest d under: sha256-<hex>.sig.
func SimpleSigningTag(d digest.Digest) string {
	return d.Algorithm().String() + "-" + d.Encoded() + ".sig"
}

// MessageVerifier is a Verifier that also checks a signature made over a
// message outside any bundle, as cosign's tag-based signatures are.
type MessageVerifier interface {
	Verifier
	VerifyMessage(signature, message []byte) error
}

// VerifyMessage checks that sig is the key's signature over message, made
// as cosign signs with a key: ECDSA over the message's digest (SHA-256
// for P-256), Ed25519 either prehashed, as cosign v3 signs, or pure, as
// older cosign versions did.
func (v *KeyVerifier) VerifyMessage(sig, message []byte) error {
	sv, err := sigsig.LoadDefaultVerifier(v.pub)
	if err != nil {
		return fmt.Errorf("read public key: %w", err)
	}
	err = sv.VerifySignature(bytes.NewReader(sig), bytes.NewReader(message))
	if pub, ok := v.pub.(ed25519.PublicKey); ok && err != nil {
		ph, phErr := sigsig.LoadED25519phVerifier(pub)
		if phErr != nil {
			return fmt.Errorf("read public key: %w", phErr)
		}
		err = ph.VerifySignature(bytes.NewReader(sig), bytes.NewReader(message))
	}
	return err
}

// verifySimpleSigning checks the tag-based signatures of desc in t, when
// t resolves tags: the first that a trusted key made and that names desc
// verifies it. The others are recorded in failed. No tag is no signature
// from this source.
func verifySimpleSigning(ctx context.Context, t content.ReadOnlyStorage, desc ocispec.Descriptor, opts VerifyOptions, failed *Error) (*Verified, error) {
	resolver, ok := t.(content.Resolver)
	if !ok {
		return nil, nil
	}
	tag := SimpleSigningTag(desc.Digest)
	sigDesc, err := resolver.Resolve(ctx, tag)
	switch {
	case errors.Is(err, errdef.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("look up cosign's signature tag %s: %w", tag, err)
	}
	where := fmt.Sprintf("cosign signature %s (tag %s)", sigDesc.Digest, tag)
	if sigDesc.Size < 0 || sigDesc.Size > artifact.MaxMetadataSize {
		failed.add(ReasonBadSignature, fmt.Sprintf("%s: manifest of %d bytes is over the %d-byte limit", where, sigDesc.Size, artifact.MaxMetadataSize))
		return nil, nil
	}
	raw, err := content.FetchAll(ctx, t, sigDesc)
	if err != nil {
		return nil, fmt.Errorf("fetch signature %s: %w", sigDesc.Digest, err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		failed.add(ReasonBadSignature, fmt.Sprintf("%s: manifest is not valid JSON: %v", where, err))
		return nil, nil
	}
	// The mediaType field is optional in an OCI manifest; the registry's
	// Content-Type, which Resolve gave, says it then.
	mediaType := m.MediaType
	if mediaType == "" {
		mediaType = sigDesc.MediaType
	}
	if mediaType != ocispec.MediaTypeImageManifest && mediaType != mediaTypeDockerManifest {
		failed.add(ReasonBadSignature, fmt.Sprintf("%s: it is a %q, not an image manifest", where, mediaType))
		return nil, nil
	}
	checked := 0
	for i, layer := range m.Layers {
		if layer.MediaType != MediaTypeSimpleSigning {
			continue
		}
		// cosign appends a layer for each signature; each costs a fetch.
		if checked++; checked > MaxSignatures {
			failed.add(failed.Reason, fmt.Sprintf("%s: only the first %d signatures were checked", where, MaxSignatures))
			break
		}
		v, f, err := verifySimpleSigningLayer(ctx, t, desc.Digest, layer, opts.Verifiers)
		if err != nil {
			return nil, err
		}
		if v != nil {
			v.Signature = sigDesc
			return v, nil
		}
		failed.add(f.Reason, fmt.Sprintf("%s, layer %d: %s", where, i, f.detail))
	}
	if checked == 0 {
		failed.add(ReasonBadSignature, fmt.Sprintf("%s: it has no %s layer", where, MediaTypeSimpleSigning))
	}
	return nil, nil
}

// verifySimpleSigningLayer checks one signature of a .sig manifest.
func verifySimpleSigningLayer(ctx context.Context, t content.Fetcher, subject digest.Digest, layer ocispec.Descriptor, verifiers []Verifier) (*Verified, failure, error) {
	b64, ok := layer.Annotations[annotationCosignSignature]
	if !ok {
		return fail(ReasonBadSignature, "it has no %s annotation", annotationCosignSignature)
	}
	sig, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return fail(ReasonBadSignature, "its signature is not base64: %v", err)
	}
	if layer.Size < 0 || layer.Size > artifact.MaxMetadataSize {
		return fail(ReasonBadSignature, "payload of %d bytes is over the %d-byte limit", layer.Size, artifact.MaxMetadataSize)
	}
	data, err := content.FetchAll(ctx, t, layer)
	switch {
	case errors.Is(err, content.ErrMismatchedDigest), errors.Is(err, content.ErrTrailingData):
		return fail(ReasonBadSignature, "its payload is not the one its manifest names: %v", err)
	case err != nil:
		return nil, failure{}, fmt.Errorf("fetch signature payload %s: %w", layer.Digest, err)
	}
	signer := messageSigner(verifiers, sig, data)
	if signer == nil {
		// The signature names no key: a wrong key and a payload changed
		// after signing look the same.
		if layer.Annotations[annotationCosignCertificate] != "" {
			return fail(ReasonWrongKey, "it is signed keyless, with a certificate, and none of the trusted keys made it: stax checks cosign's .sig signatures made with a key")
		}
		return fail(ReasonWrongKey, "made with none of the trusted keys, or its payload was changed after signing")
	}
	// The signature covers the payload's bytes, so from here on the
	// payload is what the signer signed.
	var p payload.SimpleContainerImage
	if err := json.Unmarshal(data, &p); err != nil {
		return fail(ReasonBadSignature, "its payload is not simple-signing JSON: %v", err)
	}
	if p.Critical.Type != payload.CosignSignatureType {
		return fail(ReasonBadSignature, "its payload is a %q, not a %q", p.Critical.Type, payload.CosignSignatureType)
	}
	if signed := p.Critical.Image.DockerManifestDigest; signed != subject.String() {
		return fail(ReasonSubjectMismatch, "it signs %s, not %s", signed, subject)
	}
	return &Verified{Signer: signer.ID(), Format: FormatSimpleSigning}, failure{}, nil
}

// messageSigner is the verifier sig over message verifies with; nil when
// none does.
func messageSigner(verifiers []Verifier, sig, message []byte) Verifier {
	for _, v := range verifiers {
		if mv, ok := v.(MessageVerifier); ok && mv.VerifyMessage(sig, message) == nil {
			return v
		}
	}
	return nil
}
