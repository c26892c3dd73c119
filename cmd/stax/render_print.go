package main

import (
	"errors"
	"fmt"
	"github.com/stax-dev/stax/pkg/workflow"
	"io"
	"strings"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/render"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// renderResult is the JSON output of render.
type renderResult struct {
	*workflow.RenderResult
	// Refused is set, instead of the rendering, when the SKILL.md body and
	// CALIBRATION.md alone exceed the budget.
	Refused *renderRefusal `json:"refused,omitempty"`
}

type renderRefusal struct {
	Budget  render.Budget `json:"budget"`
	Bytes   int64         `json:"bytes"`
	Tokens  int64         `json:"tokens"`
	Message string        `json:"message"`
}

// printRendered writes the rendering, or the refusal err says, as text
// or JSON.
func printRendered(opts *renderOptions, rendered *workflow.RenderResult, err error) error {
	name, res := rendered.Skill, rendered.Result
	var over *render.OverBudgetError
	switch {
	case errors.As(err, &over):
		if opts.Global.json() {
			if werr := writeJSON(opts.IO.Out, renderResult{RenderResult: &workflow.RenderResult{Skill: name, Source: rendered.Source}, Refused: &renderRefusal{
				Budget: over.Budget, Bytes: over.Bytes, Tokens: over.Tokens, Message: over.Error(),
			}}); werr != nil {
				return werr
			}
			return errdefs.Invalid(errReported)
		}
		return errdefs.Invalid(err)
	case err != nil:
		return errdefs.Invalid(err)
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, renderResult{RenderResult: rendered})
	}
	if _, err := io.WriteString(opts.IO.Out, res.Text); err != nil {
		return err
	}
	printRenderSummary(opts.IO.ErrOut, name, res)
	return nil
}

// printRenderSummary tells what went into the text, in load order, and
// what was dropped to fit the budget.
func printRenderSummary(w io.Writer, name string, res *render.Result) {
	type fileSum struct {
		bytes, pieces int64
	}
	sums := map[string]*fileSum{}
	for _, p := range res.Included {
		if sums[p.File] == nil {
			sums[p.File] = &fileSum{}
		}
		sums[p.File].bytes += p.Bytes
		if p.Kind == render.KindExample || p.Kind == render.KindEntry {
			sums[p.File].pieces++
		}
	}
	var order []string
	for _, f := range res.Files {
		s := sums[f]
		switch f {
		case skill.FileName:
			order = append(order, fmt.Sprintf("SKILL.md body (%d B)", s.bytes))
		case stateful.ExamplesFile:
			order = append(order, fmt.Sprintf("%s (%s, %d B)", f, counted(res.Examples, "example"), s.bytes))
		case stateful.MemoryFile:
			order = append(order, fmt.Sprintf("%s (%s, most recent first, %d B)", f, counted(res.Entries, "entry"), s.bytes))
		default:
			order = append(order, fmt.Sprintf("%s (%d B)", f, s.bytes))
		}
	}
	fmt.Fprintf(w, "%s: load order: %s\n", name, strings.Join(order, " → "))
	if len(res.Dropped) > 0 {
		fmt.Fprintf(w, "dropped to fit the budget of %s:\n", res.Budget)
		for _, p := range res.Dropped {
			what := p.Kind
			switch {
			case p.Kind == render.KindEntry && p.Date != "":
				what = "entry of " + p.Date
				if p.Signer != "" {
					what += " by " + p.Signer
				}
			case p.Kind == render.KindEntry:
				what = "undated entry"
			case p.Kind == render.KindExample:
				what = fmt.Sprintf("example %q", p.Title)
			}
			fmt.Fprintf(w, "  %s:%d  %s (%d B)\n", p.File, p.Line, what, p.Bytes)
		}
	}
	budget := ""
	if res.Budget.Tokens > 0 || res.Budget.Bytes > 0 {
		budget = ", budget " + res.Budget.String()
	}
	fmt.Fprintf(w, "rendered %d bytes, about %d tokens (bytes/4)%s\n", res.Bytes, res.Tokens, budget)
}

// counted is "3 of 5 entries", or "5 entries" when none was dropped.
func counted(c render.Count, word string) string {
	if c.Included == c.Total {
		return plural(int64(c.Total), word)
	}
	return fmt.Sprintf("%d of %s", c.Included, plural(int64(c.Total), word))
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}
