package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// VerifyOptions say which package Verify checks, and with which keys.
type VerifyOptions struct {
	// Ref is the package to verify: a registry reference or an oci:
	// layout, or with Local (or without a registry host) a reference in
	// the local store; one without a tag or digest is :latest. Required.
	Ref string
	// Local looks Ref up in the local store; false opens the registry
	// repository it names.
	Local bool
	// Keys are the trusted public key files, and Identities the trusted
	// keyless signers; when neither is given, the trust policy's for Ref.
	Keys       []string
	Identities []trustpolicy.Identity
	// TrustedRoot is Sigstore's trusted_root.json keyless signatures are
	// checked against; empty is the trust policy's.
	TrustedRoot string
	// Policy is the trust policy file giving the signers when there are
	// no Keys or Identities; empty is the user's, under the stax home.
	Policy string
	// Limits bound the package and the skills layer read to check the
	// signed files; the zero value is the defaults.
	layers.Limits
}

// VerifyResult says whether a package verified: who signed it, or why it
// did not verify.
type VerifyResult struct {
	// Reference is the package checked, as it was named.
	Reference string `json:"reference"`
	Digest    string `json:"digest"`
	Verified  bool   `json:"verified"`
	Signer    string `json:"signer,omitempty"`
	// Identity and Issuer are the subject and OIDC issuer of the
	// certificate of a keyless signature.
	Identity string `json:"identity,omitempty"`
	Issuer   string `json:"issuer,omitempty"`
	// SignedAt is when the signer says it signed, RFC 3339 in UTC; empty
	// when the signature does not say.
	SignedAt  string `json:"signedAt,omitempty"`
	Signature string `json:"signature,omitempty"`
	Format    string `json:"format,omitempty"`
	// Reason and Details say why it did not verify.
	Reason  string   `json:"reason,omitempty"`
	Details []string `json:"details,omitempty"`
}

// Verify checks that a signature attached to a package was made with a
// trusted key, signs this package's manifest, and covers every file of
// every skill as it is. A package that does not verify gives both the
// result, saying why, and an error of class errdefs.DataLoss; any other
// failure gives only the error.
func Verify(ctx context.Context, env *Env, opts VerifyOptions) (*VerifyResult, error) {
	src, err := source.OpenExact(ctx, env.Opener, opts.Ref, opts.Local, store.ReadOnly)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	trusted, err := env.policySigners(opts.Policy, src.Ref.String(), trust.Trusted{Keys: opts.Keys, Identities: opts.Identities, TrustedRoot: opts.TrustedRoot})
	if err != nil {
		return nil, err
	}
	verifiers, err := trust.NewLoader(env.warnings()).Verifiers(trusted)
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	out := &VerifyResult{Reference: src.Ref.Familiar(), Digest: src.Descriptor.Digest.String()}
	v, err := signature.Verify(ctx, src.Target, src.Descriptor, signature.VerifyOptions{Verifiers: verifiers, Limits: opts.Limits})
	var failed *signature.Error
	switch {
	case errors.As(err, &failed):
		out.Reason, out.Details = string(failed.Reason), failed.Details
		return out, errdefs.MarkDataLoss(fmt.Errorf("%s does not verify: %w", out.Reference, failed))
	case err != nil:
		return nil, explainSignature(src.Target, err)
	}
	out.Verified, out.Signer, out.Signature, out.Format = true, v.Signer, v.Signature.Digest.String(), v.Format
	out.Identity, out.Issuer = v.Identity, v.Issuer
	if !v.SignedAt.IsZero() {
		out.SignedAt = v.SignedAt.UTC().Format(time.RFC3339)
	}
	return out, nil
}

// policySigners are the signers trusted names, else those the trust
// policy at path, or without one the user's, gives ref; see
// trust.PolicySigners.
func (e *Env) policySigners(path, ref string, trusted trust.Trusted) (trust.Trusted, error) {
	if path == "" {
		var err error
		if path, err = trust.HomePolicyPathFrom(e.getenv); err != nil {
			return trust.Trusted{}, err
		}
	}
	return trust.PolicySigners(path, ref, trusted)
}
