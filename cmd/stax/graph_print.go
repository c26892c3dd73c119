package main

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/workflow"
)

// pinnedReference is ref pinned to dgst: ref@dgst, or ref itself when it
// names a digest already.
func pinnedReference(ref, dgst string) string {
	if parsed, err := reference.Parse(ref); err == nil && parsed.Digest != "" {
		return ref
	}
	return ref + "@" + dgst
}

// printGraphNotes shows package notices, the layers not installed and
// overrides on stderr.
func printGraphNotes(streams *IOStreams, packages []workflow.Package, overrides []string) {
	for _, p := range packages {
		for _, n := range p.Notices {
			fmt.Fprintf(streams.ErrOut, "notice: %s\n", n)
		}
	}
	for _, p := range packages {
		if w := artifact.NotInstalledWarning(p.Reference, p.NotInstalled); w != "" {
			fmt.Fprintf(streams.ErrOut, "warning: %s\n", w)
		}
	}
	for _, o := range overrides {
		fmt.Fprintf(streams.ErrOut, "warning: %s\n", o)
	}
}
