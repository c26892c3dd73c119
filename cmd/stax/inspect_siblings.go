package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/stax-dev/stax/pkg/stateful"
)

// printSiblings writes the stateful line of a skill in inspect's text
// output; nothing for a skill without siblings.
func printSiblings(w io.Writer, sum *stateful.Summary) {
	if sum == nil || len(sum.Siblings) == 0 {
		return
	}
	parts := make([]string, 0, len(sum.Siblings))
	for _, name := range sum.Siblings {
		switch name {
		case stateful.ExamplesFile:
			parts = append(parts, fmt.Sprintf("%s (%s)", name, plural(int64(sum.Examples), "example")))
		case stateful.MemoryFile:
			parts = append(parts, fmt.Sprintf("%s (%s)", name, plural(int64(sum.MemoryEntries), "entry")))
		default:
			parts = append(parts, name)
		}
	}
	fmt.Fprintf(w, "    stateful: %s\n", strings.Join(parts, ", "))
}
