package main

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

// printTags writes one tag a line, as crane ls does, so a script can read
// them; what was left out goes to standard error. The registry names the
// tags: each is escaped, so that one cannot drive the terminal or, with a
// line feed, read as two tags.
func printTags(io *IOStreams, res *workflow.TagsResult) error {
	for _, tag := range res.Tags {
		if _, err := fmt.Fprintln(io.Out, termtext.Escape(tag)); err != nil {
			return err
		}
	}
	switch {
	case len(res.Tags) == 0 && res.Hidden == 0:
		fmt.Fprintf(io.ErrOut, "%s has no tags%s\n", termtext.Escape(res.Repository), res.Missing)
	case res.Hidden > 0:
		fmt.Fprintf(io.ErrOut, "%s named after a digest hidden (--all lists them)\n", plural(int64(res.Hidden), "tag"))
	}
	return nil
}
