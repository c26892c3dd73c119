package main

import (
	"bytes"
	"context"
	"github.com/stax-dev/stax/pkg/workflow"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

type ocispecDescriptor = ocispec.Descriptor

// attachSignature pushes a stax signature referrer of subject to repoName,
// as a signer would, and returns its manifest digest.
func attachSignature(t *testing.T, repoName string, subject workflow.Transfer) string {
	t.Helper()
	return attachSignatureAt(t, repoName, subject, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
}

// attachSignatureAt is attachSignature for a signature made at signedAt:
// signatures made at different times are different referrers.
func attachSignatureAt(t *testing.T, repoName string, subject workflow.Transfer, signedAt time.Time) string {
	t.Helper()
	stamp := signedAt.UTC().Format(time.RFC3339)
	ctx := context.Background()
	repo := testRepository(t, repoName)
	subjectDesc := ocispec.Descriptor{MediaType: subject.MediaType, Digest: digest.Digest(subject.Digest), Size: subject.Size}
	cfg := []byte(`{"algorithm":"ed25519","signedAt":"` + stamp + `","signer":"test","specVersion":"1.0.0"}`)
	cfgDesc := content.NewDescriptorFromBytes("application/vnd.stax.config.v1+json", cfg)
	payload := []byte("signature payload")
	payloadDesc := content.NewDescriptorFromBytes("application/vnd.stax.signature.payload.v1", payload)
	for _, b := range []struct {
		d    ocispec.Descriptor
		data []byte
	}{{cfgDesc, cfg}, {payloadDesc, payload}} {
		if err := repo.Push(ctx, b.d, bytes.NewReader(b.data)); err != nil {
			t.Fatal(err)
		}
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.stax.signature.v1", oras.PackManifestOptions{
		Subject:          &subjectDesc,
		ConfigDescriptor: &cfgDesc,
		Layers:           []ocispec.Descriptor{payloadDesc},
		ManifestAnnotations: map[string]string{
			ocispec.AnnotationCreated: stamp,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return desc.Digest.String()
}

// pushRawPackage pushes a stax package manifest with the given config bytes
// over layer (mounted from acme/skills, where it must be), as a hostile
// writer would.
func pushRawPackage(t *testing.T, repoName, tag string, cfg []byte, layer ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	repo := testRepository(t, repoName)
	cfgDesc := content.NewDescriptorFromBytes("application/vnd.stax.config.v1+json", cfg)
	if err := repo.Push(ctx, cfgDesc, bytes.NewReader(cfg)); err != nil {
		t.Fatal(err)
	}
	if err := repo.Mount(ctx, layer, "acme/skills", nil); err != nil {
		t.Fatal(err)
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.stax.package.v1", oras.PackManifestOptions{
		ConfigDescriptor:    &cfgDesc,
		Layers:              []ocispec.Descriptor{layer},
		ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: "2026-01-01T00:00:00Z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, desc, tag); err != nil {
		t.Fatal(err)
	}
}

// testRepository opens a repository of an in-process registry directly
// with oras-go, as another client would.
func testRepository(t *testing.T, name string) *remote.Repository {
	t.Helper()
	repo, err := remote.NewRepository(name)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	return repo
}
