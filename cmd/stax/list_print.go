package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/warning"
)

// printListWarnings says, on stderr, what a runtime would only log: the
// skills it cannot load, the folders it cannot read, and the settings it
// ignores, which the stax specification asks consumers to warn about
// (docs/layering-and-install.md, "What a runtime loads"): those a line
// for the skills with the same fields, as an install's warnings are, and
// a line a skill when verbose.
func printListWarnings(w io.Writer, l *discover.Listing, verbose bool) {
	for _, msg := range l.Warnings {
		printNote(w, "warning", msg)
	}
	for _, s := range l.Skills {
		if s.Problem != "" {
			printNote(w, "warning", s.Dir+": "+s.Problem)
		}
	}
	var ignored []warning.Warning
	for _, s := range l.Skills {
		var lost []string
		for _, f := range s.Ignored {
			if f == "allowed-tools" || f == "model" {
				lost = append(lost, f)
			}
		}
		if s.Visible() && len(lost) > 0 {
			summary := l.Runtime + " ignores " + strings.Join(lost, " and ")
			ignored = append(ignored, warning.Warning{Kind: install.KindIgnoredFields, Skill: s.Key, Summary: summary, Message: s.Key + ": " + summary})
		}
	}
	for _, line := range warning.Lines(ignored, verbose) {
		printNote(w, "notice", line)
	}
}

func printList(w io.Writer, l *discover.Listing) error {
	fmt.Fprintf(w, "Runtime %s; folders in priority order:\n", l.Runtime)
	for _, f := range l.Folders {
		state := ""
		if !f.Exists {
			state = "  (none)"
		}
		fmt.Fprintf(w, "  %-8s %s%s\n", f.Scope, termtext.Escape(f.Dir), state)
	}
	for _, p := range pluginPatterns(l.Runtime) {
		fmt.Fprintf(w, "  (plugin folders are those matching ~/%s)\n", p)
	}
	if len(l.Skills) == 0 {
		_, err := fmt.Fprintln(w, "No skills.")
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tSCOPE\tSTATUS\tPACKAGE\tVERSION\tDIGEST\tDESCRIPTION")
	for _, s := range l.Skills {
		status := "loaded"
		switch {
		case s.Problem != "":
			status = "warning: cannot load (see above)"
		case s.ShadowedBy != "":
			status = "shadowed by " + termtext.Escape(s.ShadowedBy)
		case s.ModelHidden:
			status = "loaded, user-invoked only"
		}
		// The skills' names and descriptions are their authors': a YAML
		// escape in SKILL.md ("\e") puts a control character in one.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", printable(s.Key), s.Scope, status, origin(s.Installed), truncate(termtext.Escape(s.Description), 70))
	}
	return tw.Flush()
}

// origin is the PACKAGE, VERSION and DIGEST columns of a skill: where
// stax installed it from, with the digest shortened as docker and crane
// show one, or "local" for a skill stax did not install.
func origin(o *discover.Origin) string {
	if o == nil {
		return "local\t-\t-"
	}
	d := o.Digest
	if algo, hex, ok := strings.Cut(d, ":"); ok && len(hex) > 12 {
		d = algo + ":" + hex[:12]
	}
	return printable(o.Package) + "\t" + printable(cmp.Or(o.Version, "-")) + "\t" + printable(cmp.Or(d, "-"))
}

// printable is s, quoted when it holds a character termtext.Escape
// escapes or a space: the record it comes from is a file in the project,
// which anyone who can change the project can write, and it must not
// move the terminal's cursor or split a column.
func printable(s string) string {
	if termtext.Escape(s) != s || strings.Contains(s, " ") {
		return strconv.Quote(s)
	}
	return s
}

// pluginPatterns are the plugin folder patterns of a runtime, relative to
// the home directory, shown because a pattern that matches nothing lists
// no folder.
func pluginPatterns(name string) []string {
	rt, ok := agent.Lookup(name)
	if !ok {
		return nil
	}
	return slices.Clone(rt.Plugins)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
