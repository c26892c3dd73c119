package signature

import (
	"context"
	"fmt"
	"slices"

	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore-go/pkg/bundle"

	"github.com/stax-dev/stax/pkg/artifact"
)

// SignBlob signs data, a file sent on its own such as a skill-update
// proposal, and returns the Sigstore bundle as JSON: a detached signature
// to keep beside the file. What is signed is an in-toto statement of
// predicateType whose subject is name and data's SHA-256 digest, so a
// signature made for one kind of file does not pass for another's.
func SignBlob(ctx context.Context, signer Signer, name, predicateType string, data []byte) ([]byte, error) {
	st := Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: name, Digest: map[string]string{"sha256": digest.SHA256.FromBytes(data).Encoded()}}},
		PredicateType: predicateType,
	}
	payload, err := artifact.Canonical(st)
	if err != nil {
		return nil, err
	}
	b, err := signer.SignDSSE(ctx, PayloadTypeInToto, payload)
	if err != nil {
		return nil, err
	}
	return (&bundle.Bundle{Bundle: b}).MarshalJSON()
}

// VerifyBlob checks that signed, a bundle SignBlob made, signs exactly
// data with predicateType and the key of one of verifiers, and returns
// that verifier's ID. Anything else is an *Error naming data's digest and
// the reason: wrong key, bad signature, or content mismatch when the file
// is not the one that was signed.
func VerifyBlob(signed []byte, predicateType string, data []byte, verifiers []Verifier) (string, error) {
	subject := digest.SHA256.FromBytes(data)
	fail := func(r Reason, format string, args ...any) (string, error) {
		return "", &Error{Reason: r, Subject: subject, Details: []string{fmt.Sprintf(format, args...)}}
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(signed); err != nil {
		return fail(ReasonBadSignature, "not a Sigstore bundle: %v", err)
	}
	env := b.GetDsseEnvelope()
	if env == nil {
		return fail(ReasonBadSignature, "the bundle holds no DSSE envelope, the only kind stax verifies")
	}
	signer, _, reason, why := signerOf(&b, verifiers)
	if signer == nil {
		return fail(reason, "%s", why)
	}
	// The envelope's signature covers its payload: from here on the
	// statement is what the signer signed.
	st, err := ParseStatement(env.GetPayload())
	if err != nil {
		return fail(ReasonBadSignature, "%v", err)
	}
	if st.PredicateType != predicateType {
		return fail(ReasonContentMismatch, "it signs a %q, not a %q", st.PredicateType, predicateType)
	}
	if !slices.ContainsFunc(st.Subject, func(s Subject) bool { return s.Digest["sha256"] == subject.Encoded() }) {
		return fail(ReasonContentMismatch, "the file differs from what %s signed (%s)", signer.ID(), subjectDigests(st))
	}
	return signer.ID(), nil
}
