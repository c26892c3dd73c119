package signature_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/bundle"

	"github.com/stax-dev/stax/pkg/signature"
)

const blobPredicate = "https://stax.dev/proposal/v1"

// TestVerifyBlob: a detached signature verifies the file it was made for,
// with the key that made it and for the predicate it names, and nothing
// else: another file, another key, another predicate, or an envelope
// changed after signing each fail with the reason that says why.
func TestVerifyBlob(t *testing.T) {
	t.Parallel()
	signer, verifier := signingKey(t, "")
	data := []byte(`{"summary":"x","operation_type":"revise","upsert_files":{"a/MEMORY.md":"- y — @ana, 2026-11-20\n"}}`)
	signed, err := signature.SignBlob(context.Background(), signer, "proposal.json", blobPredicate, data)
	if err != nil {
		t.Fatal(err)
	}
	id, err := signature.VerifyBlob(signed, blobPredicate, data, []signature.Verifier{strangerKey(t, ""), verifier})
	if err != nil || id != verifier.ID() {
		t.Fatalf("VerifyBlob of the signed file = %q, %v; want %q", id, err, verifier.ID())
	}

	_, err = signature.VerifyBlob(signed, blobPredicate, bytes.Replace(data, []byte("@ana"), []byte("@eve"), 1), []signature.Verifier{verifier})
	wantReason(t, err, signature.ReasonContentMismatch)
	_, err = signature.VerifyBlob(signed, "https://stax.dev/attestation/package/v1", data, []signature.Verifier{verifier})
	wantReason(t, err, signature.ReasonContentMismatch)
	_, err = signature.VerifyBlob(signed, blobPredicate, data, []signature.Verifier{strangerKey(t, "")})
	wantReason(t, err, signature.ReasonWrongKey)
	_, err = signature.VerifyBlob([]byte("{}"), blobPredicate, data, []signature.Verifier{verifier})
	wantReason(t, err, signature.ReasonBadSignature)

	// A payload rewritten to name the other file's digest no longer
	// matches the envelope's signature.
	var b bundle.Bundle
	if err := b.UnmarshalJSON(signed); err != nil {
		t.Fatal(err)
	}
	env := b.GetDsseEnvelope()
	env.Payload = bytes.Replace(env.Payload, []byte("proposal.json"), []byte("proposal.jsoN"), 1)
	forged, err := b.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	_, err = signature.VerifyBlob(forged, blobPredicate, data, []signature.Verifier{verifier})
	wantReason(t, err, signature.ReasonBadSignature)
}
