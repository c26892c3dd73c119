package main

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/validate"
	"github.com/stax-dev/stax/pkg/workflow"
)

// describeTransfer says what a transfer moved: "3 skills", "image index,
// 2 platforms" or "image manifest, application/vnd.oci.image.config.v1+json".
func describeTransfer(t workflow.Transfer) string {
	switch {
	case t.Kind == transfer.KindPackage:
		return plural(int64(t.Skills), "skill")
	case len(t.Platforms) > 0:
		return t.Kind + ", " + plural(int64(len(t.Platforms)), "platform")
	}
	return t.Kind
}

func printTransfer(streams *IOStreams, global *globalOptions, verb string, t workflow.Transfer) error {
	if global.json() {
		return writeJSON(streams.Out, t)
	}
	for _, n := range t.Notices {
		printNote(streams.ErrOut, "notice", n)
	}
	if t.Replaced != "" {
		fmt.Fprintf(streams.ErrOut, "tag %s moved: %s → %s\n", t.Tag, t.Replaced, t.Digest)
	}
	fmt.Fprintf(streams.ErrOut, "%s %s (%s; %s copied, %d already there)\n", verb, t.Destination, describeTransfer(t), plural(int64(t.Copied), "blob"), t.Skipped)
	fmt.Fprintln(streams.Out, t.Reference)
	return nil
}

// printBuildNotes shows the diagnostics and notices of a package built on
// the fly.
func printBuildNotes(streams *IOStreams, global *globalOptions, built *pack.Result) {
	if global.json() {
		return
	}
	var warnings []validate.Diagnostic
	if built.Report != nil {
		warnings = built.Report.Warnings
	}
	printNotes(streams, global, warnings, built.Notices)
}

// printNotes shows the validation warnings of a build, a line per kind,
// and its notices.
func printNotes(streams *IOStreams, global *globalOptions, warnings []validate.Diagnostic, notices []string) {
	printWarnings(streams, global, validate.Warnings(warnings))
	for _, n := range notices {
		printNote(streams.ErrOut, "notice", n)
	}
}
