package main

import (
	"cmp"
	"fmt"
	"text/tabwriter"

	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

// printOutdated writes a table of the packages, as npm outdated does; a
// version that is not known is "-", and a wanted tag that was pushed over
// since it was locked says so. The packages are stax.yaml's declarations
// and the versions a registry's tags: escaped.
func printOutdated(io *IOStreams, res *workflow.OutdatedResult) error {
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PACKAGE\tRANGE\tLOCKED\tWANTED\tLATEST")
	for _, p := range res.Packages {
		name := termtext.Escape(p.Ref)
		if p.Dependency {
			name += " (dependency)"
		}
		wanted := termtext.Escape(cmp.Or(p.Wanted, "-"))
		if p.Moved {
			wanted += " (tag moved)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, termtext.Escape(cmp.Or(p.Range, "-")), termtext.Escape(cmp.Or(p.Locked, "-")), wanted, termtext.Escape(cmp.Or(p.Latest, "-")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !res.Outdated() {
		fmt.Fprintln(io.ErrOut, "every package is at its latest version")
	}
	return nil
}
