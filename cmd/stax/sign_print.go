package main

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/workflow"
)

func printSigned(streams *IOStreams, global *globalOptions, res *workflow.SignResult) error {
	if global.json() {
		return writeJSON(streams.Out, res)
	}
	fmt.Fprintf(streams.ErrOut, "Signed %s@%s with key %s\n", res.Reference, res.Digest, res.Signer)
	fmt.Fprintln(streams.Out, res.Signature)
	return nil
}

// signedAtText is when a signature says it was signed, for messages.
func signedAtText(at string) string {
	if at == "" {
		return "an unstated time"
	}
	return at
}
