package main

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/workflow"
)

// printPacked shows the package pack built: its notes, then its digest.
func printPacked(streams *IOStreams, global *globalOptions, res *workflow.PackResult) error {
	if global.json() {
		return writeJSON(streams.Out, res)
	}
	printNotes(streams, global, res.Warnings, res.Notices)
	fmt.Fprintf(streams.ErrOut, "Packed %s %s (%s) as %s\n", res.Name, res.Version, plural(int64(res.Skills), "skill"), res.Reference)
	fmt.Fprintln(streams.Out, res.Digest)
	return nil
}
