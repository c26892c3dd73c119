package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// discoveryOptions are the flags list and show share: which runtime, and
// which project.
type discoveryOptions struct {
	Runtime string
	Project string
}

func (d *discoveryOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&d.Runtime, "runtime", agent.Default,
		"the agent runtime: "+strings.Join(agent.Names(), ", "))
	cmd.Flags().StringVar(&d.Project, "dir", ".", "the project directory the runtime runs in")
}

// list reads what the runtime sees from the project and the user's home.
func (d *discoveryOptions) list() (*discover.Listing, error) {
	opts, err := d.resolve()
	if err != nil {
		return nil, err
	}
	l, err := discover.List(opts)
	if err != nil {
		return nil, errdefs.IO(err)
	}
	return l, nil
}

// resolve turns the flags into the runtime and the absolute project and
// home directories.
func (d *discoveryOptions) resolve() (discover.Options, error) {
	rt, err := agent.Find(d.Runtime)
	if err != nil {
		return discover.Options{}, errdefs.Invalid(err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return discover.Options{}, errdefs.IO(fmt.Errorf("locate the home directory: %w", err))
	}
	project, err := filepath.Abs(d.Project)
	if err != nil {
		return discover.Options{}, errdefs.IO(err)
	}
	return discover.Options{Runtime: rt, Project: project, Home: home}, nil
}

type listOptions struct {
	IO     *IOStreams
	Global *globalOptions
	discoveryOptions
	Prompt bool
}

func newListCmd(f *factory, runF func(context.Context, *listOptions) error) *cobra.Command {
	opts := &listOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "list [--runtime NAME] [--dir PROJECT]",
		Short: "List the skills an agent runtime would load",
		Long: `List the skills a runtime sees from its folders, in its priority order: the
project folders, the user folders, then plugin folders where the runtime has
them. A skill shadows any skill with the same directory name in a later
folder; shadowed skills are listed with what shadows them. A skill the
runtime cannot load (its SKILL.md frontmatter does not parse, or has no name
or description) is listed with a warning saying why, never left out.

--prompt prints instead the menu a runtime puts in its Skill tool's
description: one "- name: description" line per skill it offers the model.

Runtimes: ` + strings.Join(agent.Names(), ", ") + `; the default is ` + agent.Default + `.`,
		Example: `  stax list
  stax list --runtime cursor --dir ~/src/app
  stax list --prompt --runtime codex`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(opts)
		},
	}
	opts.addFlags(cmd)
	cmd.Flags().BoolVar(&opts.Prompt, "prompt", false, "print the name: description menu a runtime gives the model")
	return cmd
}

func runList(opts *listOptions) error {
	l, err := opts.list()
	if err != nil {
		return err
	}
	if opts.Prompt {
		if opts.Global.json() {
			return writeJSON(opts.IO.Out, struct {
				Runtime string `json:"runtime"`
				Prompt  string `json:"prompt"`
			}{l.Runtime, l.Prompt()})
		}
		_, err := io.WriteString(opts.IO.Out, l.Prompt())
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, l)
	}
	printListWarnings(opts.IO.ErrOut, l)
	return printList(opts.IO.Out, l)
}

// printListWarnings says, on stderr, what a runtime would only log: the
// skills it cannot load, the folders it cannot read, and the settings it
// ignores that seed 002 asks consumers to warn about.
func printListWarnings(w io.Writer, l *discover.Listing) {
	for _, msg := range l.Warnings {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
	for _, s := range l.Skills {
		if s.Problem != "" {
			fmt.Fprintf(w, "warning: %s: %s\n", s.Dir, s.Problem)
		}
	}
	for _, s := range l.Skills {
		var lost []string
		for _, f := range s.Ignored {
			if f == "allowed-tools" || f == "model" {
				lost = append(lost, f)
			}
		}
		if s.Visible() && len(lost) > 0 {
			fmt.Fprintf(w, "notice: %s: %s ignores %s\n", s.Key, l.Runtime, strings.Join(lost, " and "))
		}
	}
}

func printList(w io.Writer, l *discover.Listing) error {
	fmt.Fprintf(w, "Runtime %s; folders in priority order:\n", l.Runtime)
	for _, f := range l.Folders {
		state := ""
		if !f.Exists {
			state = "  (none)"
		}
		fmt.Fprintf(w, "  %-8s %s%s\n", f.Scope, f.Dir, state)
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
	fmt.Fprintln(tw, "SKILL\tSCOPE\tSTATUS\tDESCRIPTION")
	for _, s := range l.Skills {
		status := "loaded"
		switch {
		case s.Problem != "":
			status = "warning: cannot load (see above)"
		case s.ShadowedBy != "":
			status = "shadowed by " + s.ShadowedBy
		case s.ModelHidden:
			status = "loaded, user-invoked only"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Key, s.Scope, status, truncate(s.Description, 70))
	}
	return tw.Flush()
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
