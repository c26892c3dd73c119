package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/trust"
)

type verifyPackageResult struct {
	Reference string `json:"reference"`
	Digest    string `json:"digest"`
	Verified  bool   `json:"verified"`
	Signer    string `json:"signer,omitempty"`
	SignedAt  string `json:"signedAt,omitempty"`
	Signature string `json:"signature,omitempty"`
	Format    string `json:"format,omitempty"`
	// Reason and Details say why it did not verify.
	Reason  string   `json:"reason,omitempty"`
	Details []string `json:"details,omitempty"`
}

func runVerifyPackage(ctx context.Context, opts *verifyOptions) error {
	if opts.Installed {
		return errdefs.Invalid(errors.New("verify either a package REF or --installed, not both"))
	}
	opener, maxSize, err := opts.Remote.setup(opts.Global, &opts.MaxSize)
	if err != nil {
		return err
	}
	src, err := source.OpenExact(ctx, opener, opts.Ref, opts.Local, store.ReadOnly)
	if err != nil {
		return err
	}
	defer src.Close()
	keys := opts.Keys
	if len(keys) == 0 {
		if keys, err = trust.PolicyKeys(opts.Policy, src.Ref.String()); err != nil {
			return err
		}
	}
	verifiers, err := trust.LoadVerifiers(keys)
	if err != nil {
		return errdefs.Invalid(err)
	}
	out := verifyPackageResult{Reference: src.Ref.Familiar(), Digest: src.Descriptor.Digest.String()}
	v, err := signature.Verify(ctx, src.Target, src.Descriptor, signature.VerifyOptions{Verifiers: verifiers, MaxSize: maxSize})
	var failed *signature.Error
	switch {
	case errors.As(err, &failed):
		out.Reason, out.Details = string(failed.Reason), failed.Details
	case err != nil:
		return explainSignature(src.Target, err)
	default:
		out.Verified, out.Signer, out.Signature, out.Format = true, v.Signer, v.Signature.Digest.String(), v.Format
		if !v.SignedAt.IsZero() {
			out.SignedAt = signedAtText(v.SignedAt)
		}
	}
	if opts.Global.json() {
		if err := writeJSON(opts.IO.Out, out); err != nil {
			return err
		}
	} else if out.Verified {
		fmt.Fprintf(opts.IO.Out, "%s@%s: verified, signed by %s at %s\n", out.Reference, out.Digest, out.Signer, signedAtText(v.SignedAt))
	}
	if failed != nil {
		err := fmt.Errorf("%s does not verify: %w", out.Reference, failed)
		if opts.Global.json() {
			fmt.Fprintf(opts.IO.ErrOut, "Error: %v\n", err)
			return errdefs.Corrupt(errReported)
		}
		return errdefs.Corrupt(err)
	}
	return nil
}
