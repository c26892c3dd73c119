package main

import (
	"fmt"
	"strings"

	"github.com/stax-dev/stax/pkg/workflow"
)

// printInstall writes what install did: JSON, or one line per folder on
// stdout with the notes and warnings on stderr.
func printInstall(streams *IOStreams, global *globalOptions, out *workflow.InstallResult) error {
	if global.json() {
		return writeJSON(streams.Out, out)
	}
	printGraphNotes(streams, out.Packages, out.Overrides)
	for _, w := range out.Warnings {
		fmt.Fprintf(streams.ErrOut, "warning: %s\n", w)
	}
	if out.Saved != "" {
		fmt.Fprintf(streams.ErrOut, "saved install.sources in %s\n", out.Saved)
	}
	for _, t := range out.Targets {
		fmt.Fprintf(streams.Out, "%s: %s: %d installed, %d updated, %d removed, %d unchanged\n",
			strings.Join(t.Runtimes, ","), t.Dir, len(t.Installed)+len(t.Replaced), len(t.Updated), len(t.Removed), len(t.Unchanged))
	}
	return nil
}
