package signature_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/payload"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/store"
)

// cosign's tag-based signature format, as cosign v3.1.3 writes it with
// --new-bundle-format=false (pkg/oci/static and pkg/types there): written
// out here rather than taken from stax, so the tests hold stax to cosign's
// format.
const (
	cosignSimpleSigningType = "application/vnd.dev.cosign.simplesigning.v1+json"
	cosignSignatureKey      = "dev.cosignproject.cosign/signature"
	cosignCertificateKey    = "dev.sigstore.cosign/certificate"
)

// cosignSigTag is the tag cosign stores the signatures of d under.
func cosignSigTag(d digest.Digest) string {
	return "sha256-" + d.Encoded() + ".sig"
}

// cosignKey is a key as cosign signs with it: ECDSA P-256 over SHA-256,
// or Ed25519 in the prehashed form cosign v3 uses for keys, or the pure
// form older cosign versions used.
type cosignKey struct {
	signer   sigsig.Signer
	verifier *signature.KeyVerifier
}

func newCosignKey(t testing.TB, kind string) cosignKey {
	t.Helper()
	var priv crypto.Signer
	var signer sigsig.Signer
	var err error
	switch kind {
	case "ecdsa-p256":
		var k *ecdsa.PrivateKey
		if k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err == nil {
			priv = k
			signer, err = sigsig.LoadECDSASigner(k, crypto.SHA256)
		}
	case "ed25519ph", "ed25519":
		var k ed25519.PrivateKey
		if _, k, err = ed25519.GenerateKey(rand.Reader); err == nil {
			priv = k
			if kind == "ed25519ph" {
				signer, err = sigsig.LoadED25519phSigner(k)
			} else {
				signer, err = sigsig.LoadED25519Signer(k)
			}
		}
	default:
		t.Fatalf("unknown key kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	v, err := signature.NewKeyVerifier(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	return cosignKey{signer: signer, verifier: v}
}

// simpleSigningPayload is the payload cosign signs for the manifest
// subject of repo: sigstore's payload package makes it, as cosign sign
// does.
func simpleSigningPayload(t testing.TB, repo string, subject digest.Digest) []byte {
	t.Helper()
	d, err := name.NewDigest(repo + "@" + subject.String())
	if err != nil {
		t.Fatal(err)
	}
	data, err := payload.Cosign{Image: d}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// signMessage signs data as cosign sign does, returning the base64
// signature cosign puts in the layer annotation.
func (k cosignKey) signMessage(t testing.TB, data []byte) string {
	t.Helper()
	sig, err := k.signer.SignMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(sig)
}

// simpleSigningLayer is one signature of a .sig manifest.
type simpleSigningLayer struct {
	payload     []byte
	annotations map[string]string
}

// pushSigTag writes the .sig manifest cosign would write for subject in
// target, one simple-signing layer for each of layers, under cosign's tag.
func pushSigTag(t testing.TB, target oras.GraphTarget, subject digest.Digest, layers ...simpleSigningLayer) ocispec.Descriptor {
	t.Helper()
	ctx := context.Background()
	// cosign's config is an image config listing the layers' digests;
	// stax does not read it.
	config := []byte(`{"architecture":"","created":"0001-01-01T00:00:00Z","history":[{"created":"0001-01-01T00:00:00Z"}],"os":"","rootfs":{"type":"layers","diff_ids":[]},"config":{}}`)
	m := ocispec.Manifest{
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    content.NewDescriptorFromBytes(ocispec.MediaTypeImageConfig, config),
	}
	m.SchemaVersion = 2
	pushBlob(t, target, m.Config, config)
	for _, l := range layers {
		d := content.NewDescriptorFromBytes(cosignSimpleSigningType, l.payload)
		d.Annotations = l.annotations
		pushBlob(t, target, d, l.payload)
		m.Layers = append(m.Layers, d)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := oras.TagBytes(ctx, target, ocispec.MediaTypeImageManifest, raw, cosignSigTag(subject))
	if err != nil {
		t.Fatal(err)
	}
	return desc
}

func pushBlob(t testing.TB, target oras.GraphTarget, d ocispec.Descriptor, data []byte) {
	t.Helper()
	if err := target.Push(context.Background(), d, bytes.NewReader(data)); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
}

// signedLayer is a layer with payload signed by k.
func (k cosignKey) signedLayer(t testing.TB, data []byte) simpleSigningLayer {
	return simpleSigningLayer{payload: data, annotations: map[string]string{cosignSignatureKey: k.signMessage(t, data)}}
}

// TestCosignSigTagVerifies signs packages as cosign does with a key and
// --new-bundle-format=false (a .sig tag, a simple-signing payload) and
// verifies them with the key, in a registry without the referrers API,
// one with it, and an OCI layout; another key is the wrong key.
func TestCosignSigTagVerifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, place := range places {
		for _, kind := range []string{"ecdsa-p256", "ed25519ph", "ed25519"} {
			t.Run(place.name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				target := place.open(t)
				desc := packExamples(t, target, "")
				key, stranger := newCosignKey(t, kind), strangerKey(t, "")
				opts := signature.VerifyOptions{Verifiers: []signature.Verifier{stranger, key.verifier}}

				_, err := signature.Verify(ctx, target, desc, opts)
				wantReason(t, err, signature.ReasonNoSignature)

				sig := pushSigTag(t, target, desc.Digest, key.signedLayer(t, simpleSigningPayload(t, "registry.example/acme/skills", desc.Digest)))
				got, err := signature.Verify(ctx, target, desc, opts)
				if err != nil {
					t.Fatal(err)
				}
				if got.Format != "cosign-simplesigning" || got.Signer != key.verifier.ID() || got.Signature.Digest != sig.Digest || got.Provenance != nil {
					t.Fatalf("verified %+v, want the .sig manifest %s by %s", got, sig.Digest, key.verifier.ID())
				}

				_, err = signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{stranger}})
				wantReason(t, err, signature.ReasonWrongKey)
			})
		}
	}
}

// TestCosignSigTagRefusals: a .sig signature that does not say what it
// must, or was changed, does not verify, and the reason says why.
func TestCosignSigTagRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	key, other := newCosignKey(t, "ecdsa-p256"), newCosignKey(t, "ecdsa-p256")
	opts := signature.VerifyOptions{Verifiers: []signature.Verifier{key.verifier}}
	const repo = "registry.example/acme/skills"
	cases := []struct {
		name   string
		layers func(subject digest.Digest) []simpleSigningLayer
		want   signature.Reason
		detail string
	}{
		{"another package's signature", func(subject digest.Digest) []simpleSigningLayer {
			return []simpleSigningLayer{key.signedLayer(t, simpleSigningPayload(t, repo, digest.FromString("another package")))}
		}, signature.ReasonSubjectMismatch, "it signs " + digest.FromString("another package").String()},
		{"payload changed after signing", func(subject digest.Digest) []simpleSigningLayer {
			l := key.signedLayer(t, simpleSigningPayload(t, repo, subject))
			l.payload = bytes.Replace(l.payload, []byte(`"optional":null`), []byte(`"optional":{"by":"mallory"}`), 1)
			return []simpleSigningLayer{l}
		}, signature.ReasonWrongKey, "its payload was changed"},
		{"no signature annotation", func(subject digest.Digest) []simpleSigningLayer {
			return []simpleSigningLayer{{payload: simpleSigningPayload(t, repo, subject)}}
		}, signature.ReasonBadSignature, cosignSignatureKey},
		{"signature not base64", func(subject digest.Digest) []simpleSigningLayer {
			return []simpleSigningLayer{{payload: simpleSigningPayload(t, repo, subject), annotations: map[string]string{cosignSignatureKey: "not base64!"}}}
		}, signature.ReasonBadSignature, "base64"},
		{"not a simple-signing payload", func(subject digest.Digest) []simpleSigningLayer {
			return []simpleSigningLayer{key.signedLayer(t, []byte(`{"critical":{"type":"atomic container signature","image":{"docker-manifest-digest":"`+subject.String()+`"}}}`))}
		}, signature.ReasonBadSignature, "atomic container signature"},
		{"keyless", func(subject digest.Digest) []simpleSigningLayer {
			l := other.signedLayer(t, simpleSigningPayload(t, repo, subject))
			l.annotations[cosignCertificateKey] = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"
			return []simpleSigningLayer{l}
		}, signature.ReasonWrongKey, "certificate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			target := places[0].open(t)
			desc := packExamples(t, target, "")
			pushSigTag(t, target, desc.Digest, c.layers(desc.Digest)...)
			_, err := signature.Verify(ctx, target, desc, opts)
			wantReason(t, err, c.want)
			if !strings.Contains(err.Error(), c.detail) || !strings.Contains(err.Error(), cosignSigTag(desc.Digest)) {
				t.Fatalf("the error does not say %q of the tag %s: %v", c.detail, cosignSigTag(desc.Digest), err)
			}
		})
	}
}

// TestCosignSigTagTamperedPayload: a payload whose bytes are not the ones
// the .sig manifest names, served by a registry or edited in an OCI
// layout, is a bad signature, not a failure to read.
func TestCosignSigTagTamperedPayload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	key := newCosignKey(t, "ecdsa-p256")
	opts := signature.VerifyOptions{Verifiers: []signature.Verifier{key.verifier}}
	t.Run("registry", func(t *testing.T) {
		t.Parallel()
		reg := registrytest.New(t)
		target := openRemote(t, reg)
		desc := packExamples(t, target, "")
		layer := key.signedLayer(t, simpleSigningPayload(t, reg.Host+"/acme/skills", desc.Digest))
		pushSigTag(t, target, desc.Digest, layer)
		reg.AddFaults(registrytest.CorruptBlob("acme/skills", digest.FromBytes(layer.payload)))
		_, err := signature.Verify(ctx, target, desc, opts)
		wantPayloadMismatch(t, err)
	})
	t.Run("oci-layout", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target, err := store.OpenLayout(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { target.Close() })
		desc := packExamples(t, target, "")
		layer := key.signedLayer(t, simpleSigningPayload(t, "acme/skills", desc.Digest))
		pushSigTag(t, target, desc.Digest, layer)
		blob := filepath.Join(dir, "blobs", "sha256", digest.FromBytes(layer.payload).Encoded())
		tampered := bytes.Replace(layer.payload, []byte(desc.Digest.Encoded()[:8]), []byte("00000000"), 1)
		if err := os.WriteFile(blob, tampered, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = signature.Verify(ctx, target, desc, opts)
		wantPayloadMismatch(t, err)
	})
}

func wantPayloadMismatch(t *testing.T, err error) {
	t.Helper()
	wantReason(t, err, signature.ReasonBadSignature)
	if !strings.Contains(err.Error(), "its payload is not the one its manifest names") {
		t.Fatalf("the error does not say the payload was changed: %v", err)
	}
}

// TestCosignSigTagReadsABoundedNumberOfLayers: a .sig manifest with more
// signatures than MaxSignatures is checked against the first ones only,
// so a good signature past them is not reached.
func TestCosignSigTagReadsABoundedNumberOfLayers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := places[2].open(t)
	desc := packExamples(t, target, "")
	key, other := newCosignKey(t, "ecdsa-p256"), newCosignKey(t, "ecdsa-p256")
	var layers []simpleSigningLayer
	for i := range signature.MaxSignatures {
		layers = append(layers, other.signedLayer(t, simpleSigningPayload(t, fmt.Sprintf("acme/skills%d", i), desc.Digest)))
	}
	layers = append(layers, key.signedLayer(t, simpleSigningPayload(t, "acme/skills", desc.Digest)))
	pushSigTag(t, target, desc.Digest, layers...)
	_, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{key.verifier}})
	wantReason(t, err, signature.ReasonWrongKey)
	if !strings.Contains(err.Error(), fmt.Sprintf("only the first %d", signature.MaxSignatures)) {
		t.Fatalf("the error does not say the signatures were bounded: %v", err)
	}
}
