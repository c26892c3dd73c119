// Package warning groups what a command notices without failing. A
// warning of one kind about twenty skills is one line naming them, not
// twenty lines saying the same thing: a user reads the line that matters
// instead of scrolling past the ones that repeat. Every warning stays in
// the list, for --verbose and --output json.
package warning

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Warning is one thing noticed about one skill, or about the whole job.
type Warning struct {
	// Kind is stable, for scripts to branch on: ignored-fields,
	// seen-twice, runtimes-overlap, case-collision, or a validation code.
	Kind string `json:"kind"`
	// Skill is the skill it is about; empty for one about the whole job.
	Skill string `json:"skill,omitempty"`
	// Summary says it without naming the skill: the warnings of a kind
	// with the same summary are one line.
	Summary string `json:"-"`
	// Message says it in full, naming the skill.
	Message string `json:"message"`
}

// List is the warnings of a job's result. Its JSON is their messages, a
// list of strings, as a job's warnings were before they had kinds:
// scripts that read them (jq -r '.warnings[]') keep working.
type List []Warning

// MarshalJSON writes the messages.
func (l List) MarshalJSON() ([]byte, error) {
	messages := make([]string, len(l))
	for i, w := range l {
		messages[i] = w.Message
	}
	return json.Marshal(messages)
}

// UnmarshalJSON reads the messages MarshalJSON writes, each a Warning
// with its Message alone: a result read back says what it said.
func (l *List) UnmarshalJSON(data []byte) error {
	var messages []string
	if err := json.Unmarshal(data, &messages); err != nil {
		return err
	}
	*l = make(List, len(messages))
	for i, m := range messages {
		(*l)[i] = Warning{Message: m}
	}
	return nil
}

// Group is the warnings of one kind with one summary, in the order first
// seen.
type Group struct {
	Kind, Summary string
	Warnings      []Warning
}

// Groups groups ws by kind and summary, in the order each group is first
// seen. A warning without a skill or a summary is a group of its own.
func Groups(ws []Warning) []Group {
	var out []Group
	at := map[[2]string]int{}
	for _, w := range ws {
		if w.Skill != "" && w.Summary != "" {
			key := [2]string{w.Kind, w.Summary}
			if i, ok := at[key]; ok {
				out[i].Warnings = append(out[i].Warnings, w)
				continue
			}
			at[key] = len(out)
		}
		out = append(out, Group{Kind: w.Kind, Summary: w.Summary, Warnings: []Warning{w}})
	}
	return out
}

// Shown is how many skills a grouped line names before "and N more".
const Shown = 5

// Lines are the lines that say ws: a line a group, naming its first
// Shown skills and saying that --verbose lists each, and the message of a
// group of one; every message when verbose.
func Lines(ws []Warning, verbose bool) []string {
	var out []string
	for _, g := range Groups(ws) {
		if verbose || len(g.Warnings) == 1 {
			for _, w := range g.Warnings {
				out = append(out, w.Message)
			}
			continue
		}
		out = append(out, g.line())
	}
	return out
}

// line is "SUMMARY: N skills: a, b, c, d, e and 9 more (--verbose lists
// all)"; "SUMMARY: 12 in N skills: …" when some skill draws more than
// one.
func (g Group) line() string {
	var skills []string
	for _, w := range g.Warnings {
		if !slices.Contains(skills, w.Skill) {
			skills = append(skills, w.Skill)
		}
	}
	count := ""
	if len(g.Warnings) != len(skills) {
		count = fmt.Sprintf("%d in ", len(g.Warnings))
	}
	shown, more := skills[:min(len(skills), Shown)], ""
	if len(skills) > Shown {
		more = fmt.Sprintf(" and %d more", len(skills)-Shown)
	}
	noun := "skills"
	if len(skills) == 1 {
		noun = "skill"
	}
	return fmt.Sprintf("%s: %s%d %s: %s%s (--verbose lists each)", g.Summary, count, len(skills), noun, strings.Join(shown, ", "), more)
}
