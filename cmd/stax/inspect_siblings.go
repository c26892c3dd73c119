package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/stateful"
)

// inspectSiblings reads the stateful siblings of every skill of the
// package from its skills layer: which are present, how many memory
// entries and examples they hold (seed 000 §4: the example count is a
// quality signal). Skills are keyed by their directory.
func inspectSiblings(ctx context.Context, src *source, pkg *artifact.Package, maxSize int64) (map[string]*stateful.Summary, error) {
	c := stateful.NewCollector()
	err := walkSkills(ctx, src, pkg, maxSize, func(h layers.Header, r io.Reader) error {
		if h.Dir {
			return nil
		}
		return c.Add(h.Path, r)
	})
	if err != nil {
		return nil, err
	}
	out := map[string]*stateful.Summary{}
	for _, rec := range pkg.Config.Skills {
		sum := c.Set(rec.Path).Summary()
		out[rec.Path] = &sum
	}
	return out, nil
}

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
