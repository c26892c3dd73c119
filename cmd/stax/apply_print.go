package main

import (
	"fmt"
	"io"

	"github.com/stax-dev/stax/pkg/proposal"
)

func printApply(out, errOut io.Writer, res *proposal.Result) error {
	for _, w := range res.Warnings {
		printNote(errOut, "warning", w)
	}
	if res.NoOp {
		_, err := fmt.Fprintf(out, "no change: the proposal (%s) matches the skill as it is\n", res.Operation)
		return err
	}
	verb := "applied"
	if res.DryRun {
		verb = "would apply"
	}
	for _, s := range res.Skills {
		version := ""
		switch {
		case s.Part != "":
			version = fmt.Sprintf(": %s → %s (%s)", s.From, s.To, s.Part)
		case s.Created && s.To != "":
			version = fmt.Sprintf(": new at %s", s.To)
		case s.Created:
			version = ": new"
		}
		fmt.Fprintf(out, "%s %s to %s%s\n", verb, res.Operation, s.Slug, version)
		for _, f := range s.Files {
			mark := "M"
			if f.Status == "added" {
				mark = "A"
			}
			if _, err := fmt.Fprintf(out, "  %s %s  +%d -%d\n", mark, f.Path, f.Added, f.Removed); err != nil {
				return err
			}
		}
	}
	return nil
}
