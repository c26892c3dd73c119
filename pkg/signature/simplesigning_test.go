package signature_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"

	"github.com/stax-dev/stax/internal/cosigntest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/store"
)

// cosignKey is a key as cosign signs with it (see cosigntest.NewKey) and
// stax's verifier of its public key.
type cosignKey struct {
	*cosigntest.Key
	verifier *signature.KeyVerifier
}

func newCosignKey(t testing.TB, kind string) cosignKey {
	t.Helper()
	k, err := cosigntest.NewKey(kind)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signature.NewKeyVerifier(k.Public)
	if err != nil {
		t.Fatal(err)
	}
	return cosignKey{Key: k, verifier: v}
}

// simpleSigningPayload is the payload cosign signs for subject in repo.
func simpleSigningPayload(t testing.TB, repo string, subject digest.Digest) []byte {
	t.Helper()
	data, err := cosigntest.Payload(repo, subject)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// signedLayer is a layer with data signed by k.
func (k cosignKey) signedLayer(t testing.TB, data []byte) cosigntest.Layer {
	t.Helper()
	l, err := k.Sign(data)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// pushSigTag writes the .sig manifest cosign would write for subject.
func pushSigTag(t testing.TB, target oras.Target, subject digest.Digest, layers ...cosigntest.Layer) ocispec.Descriptor {
	t.Helper()
	desc, err := cosigntest.Push(context.Background(), target, subject, layers...)
	if err != nil {
		t.Fatal(err)
	}
	return desc
}

// TestCosignSigTagVerifies signs packages as cosign does with a key and
// --new-bundle-format=false (a .sig tag, a simple-signing payload) and
// verifies them with the key, in a registry without the referrers API,
// one with it, and an OCI layout; another key is the wrong key.
func TestCosignSigTagVerifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, place := range places {
		for _, kind := range []string{cosigntest.ECDSAP256, cosigntest.Ed25519ph, cosigntest.Ed25519} {
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
	key, other := newCosignKey(t, cosigntest.ECDSAP256), newCosignKey(t, cosigntest.ECDSAP256)
	opts := signature.VerifyOptions{Verifiers: []signature.Verifier{key.verifier}}
	const repo = "registry.example/acme/skills"
	cases := []struct {
		name   string
		layers func(subject digest.Digest) []cosigntest.Layer
		want   signature.Reason
		detail string
	}{
		{"another package's signature", func(subject digest.Digest) []cosigntest.Layer {
			return []cosigntest.Layer{key.signedLayer(t, simpleSigningPayload(t, repo, digest.FromString("another package")))}
		}, signature.ReasonSubjectMismatch, "it signs " + digest.FromString("another package").String()},
		{"payload changed after signing", func(subject digest.Digest) []cosigntest.Layer {
			l := key.signedLayer(t, simpleSigningPayload(t, repo, subject))
			l.Payload = bytes.Replace(l.Payload, []byte(`"optional":null`), []byte(`"optional":{"by":"mallory"}`), 1)
			return []cosigntest.Layer{l}
		}, signature.ReasonWrongKey, "its payload was changed"},
		{"no signature annotation", func(subject digest.Digest) []cosigntest.Layer {
			return []cosigntest.Layer{{Payload: simpleSigningPayload(t, repo, subject)}}
		}, signature.ReasonBadSignature, cosigntest.AnnotationSignature},
		{"signature not base64", func(subject digest.Digest) []cosigntest.Layer {
			return []cosigntest.Layer{{Payload: simpleSigningPayload(t, repo, subject), Annotations: map[string]string{cosigntest.AnnotationSignature: "not base64!"}}}
		}, signature.ReasonBadSignature, "base64"},
		{"not a simple-signing payload", func(subject digest.Digest) []cosigntest.Layer {
			return []cosigntest.Layer{key.signedLayer(t, []byte(`{"critical":{"type":"atomic container signature","image":{"docker-manifest-digest":"`+subject.String()+`"}}}`))}
		}, signature.ReasonBadSignature, "atomic container signature"},
		{"keyless", func(subject digest.Digest) []cosigntest.Layer {
			l := other.signedLayer(t, simpleSigningPayload(t, repo, subject))
			l.Annotations[cosigntest.AnnotationCertificate] = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"
			return []cosigntest.Layer{l}
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
			if !strings.Contains(err.Error(), c.detail) || !strings.Contains(err.Error(), cosigntest.Tag(desc.Digest)) {
				t.Fatalf("the error does not say %q of the tag %s: %v", c.detail, cosigntest.Tag(desc.Digest), err)
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
	key := newCosignKey(t, cosigntest.ECDSAP256)
	opts := signature.VerifyOptions{Verifiers: []signature.Verifier{key.verifier}}
	t.Run("registry", func(t *testing.T) {
		t.Parallel()
		reg := registrytest.New(t)
		target := openRemote(t, reg)
		desc := packExamples(t, target, "")
		layer := key.signedLayer(t, simpleSigningPayload(t, reg.Host+"/acme/skills", desc.Digest))
		pushSigTag(t, target, desc.Digest, layer)
		reg.AddFaults(registrytest.CorruptBlob("acme/skills", digest.FromBytes(layer.Payload)))
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
		blob := filepath.Join(dir, "blobs", "sha256", digest.FromBytes(layer.Payload).Encoded())
		tampered := bytes.Replace(layer.Payload, []byte(desc.Digest.Encoded()[:8]), []byte("00000000"), 1)
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
	key, other := newCosignKey(t, cosigntest.ECDSAP256), newCosignKey(t, cosigntest.ECDSAP256)
	var layers []cosigntest.Layer
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

// TestCosignSigTagRefusesAnOversizedPayload: a payload over the metadata
// limit is refused from its descriptor, before any of it is fetched.
func TestCosignSigTagRefusesAnOversizedPayload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	target := openRemote(t, reg)
	desc := packExamples(t, target, "")
	key := newCosignKey(t, cosigntest.ECDSAP256)
	payload := simpleSigningPayload(t, reg.Host+"/acme/skills", desc.Digest)
	payload = append(payload, bytes.Repeat([]byte(" "), artifact.MaxMetadataSize+1-len(payload))...)
	layer := key.signedLayer(t, payload)
	pushSigTag(t, target, desc.Digest, layer)
	reg.ResetRequests()
	_, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{key.verifier}})
	wantReason(t, err, signature.ReasonBadSignature)
	if !strings.Contains(err.Error(), "over the") {
		t.Fatalf("the error does not name the limit: %v", err)
	}
	for _, r := range reg.Requests() {
		if strings.HasSuffix(r.Path, "/blobs/"+digest.FromBytes(payload).String()) {
			t.Fatalf("the oversized payload was fetched: %s %s", r.Method, r.Path)
		}
	}
}

// TestCosignSigTagThatIsNoImageManifest: an index under the .sig tag is no
// signature stax can check, and is reported as a bad one.
func TestCosignSigTagThatIsNoImageManifest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := places[2].open(t)
	desc := packExamples(t, target, "")
	index := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`)
	if _, err := oras.TagBytes(ctx, target, ocispec.MediaTypeImageIndex, index, cosigntest.Tag(desc.Digest)); err != nil {
		t.Fatal(err)
	}
	_, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{strangerKey(t, "")}})
	wantReason(t, err, signature.ReasonBadSignature)
	if !strings.Contains(err.Error(), "not an image manifest") {
		t.Fatalf("the error does not say what the tag holds: %v", err)
	}
}
