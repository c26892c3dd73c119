package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

type showOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	discoveryOptions
	Name string
}

func newShowCmd(f *factory, runF func(context.Context, *showOptions) error) *cobra.Command {
	opts := &showOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "show NAME [--runtime NAME] [--dir PROJECT]",
		Short: "Show a skill as a runtime's Skill tool returns it",
		Long: `Show the skill a runtime loads for NAME (a skill directory name, else a
frontmatter name), found as stax list finds it: its description, the one line
the model sees before it invokes the skill, and its body, what the runtime's
Skill tool returns when it does. Frontmatter fields the runtime ignores are
named. stax render shows the same skill with its stateful files and
variables.`,
		Example: `  stax show review-pr
  stax show review-pr --runtime codex --output json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runShow(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd)
	return cmd
}

func runShow(ctx context.Context, opts *showOptions) error {
	where, err := opts.resolve()
	if err != nil {
		return err
	}
	env, _, err := opts.Env(nil) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	res, err := workflow.Show(ctx, env, workflow.ShowOptions{Discover: where, Name: opts.Name})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	return printShow(opts.IO.Out, res.Runtime, res.Skill)
}

// printShow writes what the runtime reads of the skill: a header of its
// frontmatter, escaped as list shows it (a YAML escape puts any
// character in a description), then its body as it is, the text the
// runtime loads.
func printShow(w io.Writer, runtime string, s discover.Skill) error {
	esc := termtext.Escape
	fmt.Fprintf(w, "Skill:       %s (%s, %s)\n", esc(s.Name), s.Scope, esc(s.Dir))
	fmt.Fprintf(w, "Description: %s\n", esc(s.Description))
	if len(s.Ignored) > 0 {
		fmt.Fprintf(w, "Ignored by %s: %s\n", runtime, esc(strings.Join(s.Ignored, ", ")))
	}
	if s.ModelHidden {
		fmt.Fprintf(w, "Not offered to the model (disable-model-invocation); users invoke it by name.\n")
	}
	fmt.Fprintln(w, "---")
	_, err := io.WriteString(w, s.Body())
	return err
}
