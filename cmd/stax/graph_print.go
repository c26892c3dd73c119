package main

import (
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
			printNote(streams.ErrOut, "notice", n)
		}
	}
	for _, p := range packages {
		if w := artifact.NotInstalledWarning(p.Reference, p.NotInstalled); w != "" {
			printNote(streams.ErrOut, "warning", w)
		}
	}
	for _, o := range overrides {
		printNote(streams.ErrOut, "warning", o)
	}
}
