package signature_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"

	"github.com/stax-dev/stax/pkg/signature"
)

// TestSignAttachesAsCosign checks that a signature is attached the way
// cosign v3 attaches a bundle, which is where cosign verify and
// verify-attestation look for one: the only referrer of the package,
// listed under the bundle's artifact type; its manifest has the empty
// config, one layer that is a v0.3 bundle, and cosign's annotations; the
// bundle's DSSE envelope signs the stax statement of the package.
func TestSignAttachesAsCosign(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, place := range places {
		t.Run(place.name, func(t *testing.T) {
			t.Parallel()
			target := place.open(t)
			desc := packExamples(t, target, "")
			signer, verifier := signingKey(t, "")
			signedAt := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
			signed, err := signature.Sign(ctx, target, desc, signer, signature.SignOptions{Name: "acme/skills", Now: signedAt})
			if err != nil {
				t.Fatal(err)
			}

			refs, err := registry.Referrers(ctx, target, desc, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(refs) != 1 || refs[0].Digest != signed.Descriptor.Digest || refs[0].ArtifactType != signature.MediaTypeSigstoreBundle {
				t.Fatalf("referrers %+v, want the signature %s alone, of type %s", refs, signed.Descriptor.Digest, signature.MediaTypeSigstoreBundle)
			}
			raw, err := content.FetchAll(ctx, target, signed.Descriptor)
			if err != nil {
				t.Fatal(err)
			}
			var m ocispec.Manifest
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			if m.MediaType != ocispec.MediaTypeImageManifest || m.ArtifactType != signature.MediaTypeSigstoreBundle {
				t.Fatalf("manifest %s of artifact type %s", m.MediaType, m.ArtifactType)
			}
			if m.Config.MediaType != ocispec.MediaTypeEmptyJSON || m.Config.Digest != ocispec.DescriptorEmptyJSON.Digest {
				t.Fatalf("config %+v, want the empty config", m.Config)
			}
			if m.Subject == nil || m.Subject.Digest != desc.Digest {
				t.Fatalf("subject %+v, want %s", m.Subject, desc.Digest)
			}
			want := map[string]string{
				ocispec.AnnotationCreated:               "2026-05-01T12:00:00Z",
				signature.AnnotationBundleContent:       "dsse-envelope",
				signature.AnnotationBundlePredicateType: signature.PredicateType,
			}
			for k, v := range want {
				if m.Annotations[k] != v {
					t.Errorf("annotation %s = %q, want %q", k, m.Annotations[k], v)
				}
			}
			if len(m.Layers) != 1 || m.Layers[0].MediaType != signature.MediaTypeSigstoreBundle {
				t.Fatalf("layers %+v, want one %s", m.Layers, signature.MediaTypeSigstoreBundle)
			}
			data, err := content.FetchAll(ctx, target, m.Layers[0])
			if err != nil {
				t.Fatal(err)
			}
			var b bundle.Bundle
			if err := b.UnmarshalJSON(data); err != nil {
				t.Fatal(err)
			}
			if !b.MinVersion("v0.3") || b.GetDsseEnvelope().GetPayloadType() != signature.PayloadTypeInToto {
				t.Fatalf("bundle %s holding a %q", b.GetMediaType(), b.GetDsseEnvelope().GetPayloadType())
			}
			st, err := signature.ParseStatement(b.GetDsseEnvelope().GetPayload())
			if err != nil {
				t.Fatal(err)
			}
			if st.PredicateType != signature.PredicateType || len(st.Subject) != 1 || st.Subject[0].Digest["sha256"] != desc.Digest.Encoded() {
				t.Fatalf("statement %+v", st)
			}

			got, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Format != signature.FormatStax || got.Provenance == nil || !got.SignedAt.Equal(signedAt) {
				t.Fatalf("verified %+v", got)
			}
		})
	}
}

// TestLegacyStaxSignatureVerifies: a signature stax attached before it
// attached them as cosign does (its own artifact type, the signer in the
// config) still verifies, its content checked.
func TestLegacyStaxSignatureVerifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	signer, verifier := signingKey(t, "")
	for _, place := range places {
		t.Run(place.name, func(t *testing.T) {
			t.Parallel()
			origin := place.open(t)
			desc := packExamples(t, origin, "")
			signed, err := signature.Sign(ctx, origin, desc, signer, signature.SignOptions{})
			if err != nil {
				t.Fatal(err)
			}
			good := readReferrer(t, origin, signed.Descriptor)

			target := place.open(t)
			if d := packExamples(t, target, ""); d.Digest != desc.Digest {
				t.Fatal("the build is not reproducible")
			}
			cfg := legacyConfig(t, signed.Config)
			attach(t, target, desc, signature.ArtifactType, content.NewDescriptorFromBytes(signature.MediaTypeConfig, cfg), cfg, signature.MediaTypePayload, good.bundle)
			got, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Format != signature.FormatStax || got.Provenance == nil || got.Signer != verifier.ID() {
				t.Fatalf("verified %+v", got)
			}
		})
	}
}
