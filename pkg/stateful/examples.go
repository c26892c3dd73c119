package stateful

import (
	"fmt"
	"strings"
)

// The subheadings of an example block (docs/stateful-skills.md).
const (
	headingInput  = "input"
	headingOutput = "output"
	headingWhy    = "why this example"
)

// Examples is a parsed EXAMPLES.md.
type Examples struct {
	// Preamble is the text before the first H2 heading, without blank
	// lines at either end.
	Preamble     string
	PreambleLine int
	// Blocks are the examples in file order, which the RFC makes
	// significant: canonical examples first, edge cases last.
	Blocks   []Example
	Problems []Problem
}

// Example is one H2 block of EXAMPLES.md.
type Example struct {
	Title string `json:"title"`
	Line  int    `json:"line"`
	// Text is the block from its heading line on, without trailing blank
	// lines.
	Text string `json:"-"`
	// The lines of the ### Input, ### Output and ### Why this example
	// subheadings; 0 when absent.
	InputLine  int `json:"inputLine,omitempty"`
	OutputLine int `json:"outputLine,omitempty"`
	WhyLine    int `json:"whyLine,omitempty"`
}

// ParseExamples parses EXAMPLES.md. Every H2 heading opens an example;
// a block without ### Input or ### Output is a Problem.
func ParseExamples(data []byte) *Examples {
	x := &Examples{}
	pre, secs := splitH2(scanLines(string(data), 1))
	x.Preamble, x.PreambleLine = join(pre)
	for _, s := range secs {
		ex := Example{Title: s.heading.title, Line: s.heading.num}
		ex.Text, _ = join(append([]mdLine{s.heading}, s.body...))
		for _, l := range s.body {
			if l.fence != outside || l.heading != 3 {
				continue
			}
			var slot *int
			switch normalizeTitle(l.title) {
			case headingInput:
				slot = &ex.InputLine
			case headingOutput:
				slot = &ex.OutputLine
			case headingWhy:
				slot = &ex.WhyLine
			}
			if slot != nil && *slot == 0 {
				*slot = l.num
			}
		}
		var missing []string
		if ex.InputLine == 0 {
			missing = append(missing, "### Input")
		}
		if ex.OutputLine == 0 {
			missing = append(missing, "### Output")
		}
		if len(missing) > 0 {
			x.Problems = append(x.Problems, Problem{Kind: ExampleIncomplete, Line: ex.Line, Message: fmt.Sprintf(
				"example %q has no %s; every example needs an ### Input and an ### Output subheading (### Why this example is optional)",
				ex.Title, strings.Join(missing, " and no "))})
		}
		x.Blocks = append(x.Blocks, ex)
	}
	return x
}
