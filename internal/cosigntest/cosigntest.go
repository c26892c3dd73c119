// Package cosigntest writes cosign's tag-based signatures for tests: what
// cosign sign --key writes with --new-bundle-format=false, the format of
// cosign v1 and v2. The payload is made by sigstore's payload package and
// signed by sigstore's signers, as cosign does; the media types and
// annotations are written out here, as cosign v3.1.3 names them
// (pkg/types and pkg/oci/static there), rather than taken from stax, so
// tests hold stax to cosign's format.
//
//	key, _ := cosigntest.NewKey(cosigntest.ECDSAP256)
//	data, _ := cosigntest.Payload("ghcr.io/acme/skills", desc.Digest)
//	layer, _ := key.Sign(data)
//	cosigntest.Push(ctx, repo, desc.Digest, layer)
package cosigntest

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
	"errors"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/payload"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
)

// cosign's names for the parts of a tag-based signature.
const (
	MediaTypeSimpleSigning = "application/vnd.dev.cosign.simplesigning.v1+json"
	AnnotationSignature    = "dev.cosignproject.cosign/signature"
	AnnotationCertificate  = "dev.sigstore.cosign/certificate"
)

// Tag is the tag cosign stores the signatures of the manifest d under.
func Tag(d digest.Digest) string {
	return d.Algorithm().String() + "-" + d.Encoded() + ".sig"
}

// Key kinds, as cosign signs with them.
const (
	// ECDSAP256 signs the SHA-256 of the payload.
	ECDSAP256 = "ecdsa-p256"
	// Ed25519ph is how cosign v3 signs with an Ed25519 key.
	Ed25519ph = "ed25519ph"
	// Ed25519 is the pure form older cosign versions signed with.
	Ed25519 = "ed25519"
)

// Key is a signing key.
type Key struct {
	signer sigsig.Signer
	// Public is the public key.
	Public crypto.PublicKey
}

// NewKey makes a key of the kind named.
func NewKey(kind string) (*Key, error) {
	switch kind {
	case ECDSAP256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		s, err := sigsig.LoadECDSASigner(k, crypto.SHA256)
		return &Key{signer: s, Public: k.Public()}, err
	case Ed25519ph, Ed25519:
		pub, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		var s sigsig.Signer
		if kind == Ed25519ph {
			s, err = sigsig.LoadED25519phSigner(k)
		} else {
			s, err = sigsig.LoadED25519Signer(k)
		}
		return &Key{signer: s, Public: pub}, err
	}
	return nil, fmt.Errorf("unknown key kind %q", kind)
}

// PublicPEM is the public key as cosign.pub holds it.
func (k *Key) PublicPEM() ([]byte, error) {
	return cryptoutils.MarshalPublicKeyToPEM(k.Public)
}

// Payload is the simple-signing payload cosign signs for the manifest
// subject of the repository repo (registry/path, no tag).
func Payload(repo string, subject digest.Digest) ([]byte, error) {
	d, err := name.NewDigest(repo + "@" + subject.String())
	if err != nil {
		return nil, err
	}
	return payload.Cosign{Image: d}.MarshalJSON()
}

// Layer is one signature of a .sig manifest: a payload and the layer's
// annotations, the signature among them.
type Layer struct {
	Payload     []byte
	Annotations map[string]string
}

// Sign signs data as cosign sign does and returns it as a layer.
func (k *Key) Sign(data []byte) (Layer, error) {
	sig, err := k.signer.SignMessage(bytes.NewReader(data))
	if err != nil {
		return Layer{}, err
	}
	return Layer{Payload: data, Annotations: map[string]string{AnnotationSignature: base64.StdEncoding.EncodeToString(sig)}}, nil
}

// config is a .sig manifest's config, an image config as cosign writes
// one; what it says is not part of the signature.
var config = []byte(`{"architecture":"","created":"0001-01-01T00:00:00Z","history":[{"created":"0001-01-01T00:00:00Z"}],"os":"","rootfs":{"type":"layers","diff_ids":[]},"config":{}}`)

// Push writes the .sig manifest of subject to target, one layer for each
// of layers, and tags it with Tag(subject), replacing what was there as
// cosign does when it signs again.
func Push(ctx context.Context, target oras.Target, subject digest.Digest, layers ...Layer) (ocispec.Descriptor, error) {
	m := ocispec.Manifest{
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    content.NewDescriptorFromBytes(ocispec.MediaTypeImageConfig, config),
	}
	m.SchemaVersion = 2
	if err := pushBlob(ctx, target, m.Config, config); err != nil {
		return ocispec.Descriptor{}, err
	}
	for _, l := range layers {
		d := content.NewDescriptorFromBytes(MediaTypeSimpleSigning, l.Payload)
		d.Annotations = l.Annotations
		if err := pushBlob(ctx, target, d, l.Payload); err != nil {
			return ocispec.Descriptor{}, err
		}
		m.Layers = append(m.Layers, d)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	return oras.TagBytes(ctx, target, ocispec.MediaTypeImageManifest, raw, Tag(subject))
}

func pushBlob(ctx context.Context, target oras.Target, d ocispec.Descriptor, data []byte) error {
	err := target.Push(ctx, d, bytes.NewReader(data))
	if err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return err
	}
	return nil
}
