package main

import (
	"fmt"
	"time"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/signature"
)

type signResult struct {
	Reference string `json:"reference"`
	Digest    string `json:"digest"`
	Signature string `json:"signature"`
	Signer    string `json:"signer"`
	SignedAt  string `json:"signedAt"`
	Algorithm string `json:"algorithm"`
}

func printSigned(streams *IOStreams, global *globalOptions, ref reference.Reference, dgst string, signed *signature.Signed) error {
	out := signResult{
		Reference: ref.Familiar(), Digest: dgst, Signature: signed.Descriptor.Digest.String(),
		Signer: signed.Config.Signer, SignedAt: signed.Config.SignedAt, Algorithm: signed.Config.Algorithm,
	}
	if global.json() {
		return writeJSON(streams.Out, out)
	}
	fmt.Fprintf(streams.ErrOut, "Signed %s@%s with key %s\n", out.Reference, out.Digest, out.Signer)
	fmt.Fprintln(streams.Out, out.Signature)
	return nil
}

// signedAtText formats a signing time for messages.
func signedAtText(t time.Time) string {
	if t.IsZero() {
		return "an unstated time"
	}
	return t.UTC().Format(time.RFC3339)
}
