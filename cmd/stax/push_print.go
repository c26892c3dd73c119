package main

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/workflow"
)

// printDependencyPushed says where push --push-dependencies put one
// package directory.
func printDependencyPushed(streams *IOStreams, global *globalOptions, d publish.Published) {
	if global.json() {
		return
	}
	if d.Replaced != "" {
		fmt.Fprintf(streams.ErrOut, "tag %s moved: %s → %s\n", d.Ref, d.Replaced, d.Digest)
	}
	fmt.Fprintf(streams.ErrOut, "Pushed dependency %s as %s@%s\n", d.Dir, d.Ref, d.Digest)
}

// printPushed shows what push copied, and the signature it attached.
func printPushed(streams *IOStreams, global *globalOptions, res *workflow.PushResult) error {
	if res.Signature != nil && !global.json() {
		fmt.Fprintf(streams.ErrOut, "Signed with key %s: signature %s\n", res.Signature.Config.Signer, res.Signature.Descriptor.Digest)
	}
	return printTransfer(streams, global, "Pushed", res.Transfer)
}
