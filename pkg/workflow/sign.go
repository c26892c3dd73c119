package workflow

import (
	"context"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// SignOptions say which package Sign signs, and with which key.
type SignOptions struct {
	// Ref is the package to sign: a registry reference or an oci:
	// layout, or with Local (or without a registry host) a reference in
	// the local store; one without a tag or digest is :latest. Required.
	Ref string
	// Local looks Ref up in the local store; false opens the registry
	// repository it names.
	Local bool
	// Signer is the private key to sign with (see
	// signature.LoadPrivateKey). Required.
	Signer signature.Signer
	// Limits bound the package and the skills layer read to list the
	// files signed; the zero value is the defaults.
	layers.Limits
}

// SignResult is the signature Sign attached.
type SignResult struct {
	// Reference is the package signed, as it was named.
	Reference string `json:"reference"`
	// Digest is the package's manifest digest, the subject signed.
	Digest string `json:"digest"`
	// Signature is the digest of the signature's manifest.
	Signature string `json:"signature"`
	Signer    string `json:"signer"`
	SignedAt  string `json:"signedAt"`
	Algorithm string `json:"algorithm"`
}

// Sign signs a package where it is, attaching the signature to it as a
// referrer, in one place only: the signature is attached where Ref says,
// never to a copy found elsewhere.
func Sign(ctx context.Context, env *Env, opts SignOptions) (*SignResult, error) {
	src, err := source.OpenExact(ctx, env.Opener, opts.Ref, opts.Local, store.ReadWrite)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	signed, err := sign(ctx, src.Target, src.Descriptor, opts.Signer, opts.Limits)
	if err != nil {
		return nil, err
	}
	return &SignResult{
		Reference: src.Ref.Familiar(), Digest: src.Descriptor.Digest.String(), Signature: signed.Descriptor.Digest.String(),
		Signer: signed.Config.Signer, SignedAt: signed.Config.SignedAt, Algorithm: signed.Config.Algorithm,
	}, nil
}

// sign signs the package desc in t, naming it in the signed statement as
// t's reference names it.
func sign(ctx context.Context, t *target.Target, desc ocispec.Descriptor, signer signature.Signer, limits layers.Limits) (*signature.Signed, error) {
	signed, err := signature.Sign(ctx, t, desc, signer, signature.SignOptions{Name: t.Ref.Familiar(), Limits: limits})
	if err != nil {
		return nil, explainSignature(t, err)
	}
	return signed, nil
}

// explainSignature gives the errors of signing and verifying their
// classes: a package that does not verify is corrupt, one that is no
// package an invalid argument.
func explainSignature(t *target.Target, err error) error {
	switch {
	case errors.Is(err, signature.ErrNotVerified):
		return errdefs.MarkDataLoss(err)
	case errors.Is(err, artifact.ErrInvalidPackage):
		return errdefs.Invalid(fmt.Errorf("%s: %w", t.Name(), err))
	}
	return t.Explain(err)
}
