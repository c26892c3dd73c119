package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/workflow"
)

func newNewCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "new",
		Short: "Create a new skill that validates as it is",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newNewSkillCmd(f, nil))
	return cmd
}

type newSkillOptions struct {
	IO       *IOStreams
	Global   *globalOptions
	Name     string
	Dir      string
	Stateful bool
}

func newNewSkillCmd(f *factory, runF func(context.Context, *newSkillOptions) error) *cobra.Command {
	opts := &newSkillOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "skill NAME [DIR]",
		Short: "Scaffold a skill: SKILL.md, and with --stateful its MEMORY.md, EXAMPLES.md and CALIBRATION.md",
		Long: `Create DIR/NAME (DIR is the skills directory, default: the current package's)
with a SKILL.md whose frontmatter has the name, a description placeholder
phrased as a trigger ("Use when the user asks to …") and version 0.1.0, and a
body with the usual sections. --stateful adds CALIBRATION.md, EXAMPLES.md and
MEMORY.md (version in sync, dated today: UTC, or SOURCE_DATE_EPOCH).

As created, the skill passes stax validate with a warning for each TODO
placeholder, which stax validate --strict refuses, and push too unless
--allow-placeholders, until the TODOs are replaced. An existing folder is
never touched.`,
		Example: `  stax new skill review-pr
  stax new skill incident-postmortem skills --stateful`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if len(args) == 2 {
				opts.Dir = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runNewSkill(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Stateful, "stateful", false, "add MEMORY.md, EXAMPLES.md and CALIBRATION.md")
	return cmd
}

func runNewSkill(ctx context.Context, opts *newSkillOptions) error {
	// Scaffolding reads no store nor registry: its Env needs no opener.
	env := &workflow.Env{Getenv: opts.Global.getenv}
	res, err := workflow.NewSkill(ctx, env, workflow.NewSkillOptions{Name: opts.Name, SkillsDir: opts.Dir, Stateful: opts.Stateful})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res.Result)
	}
	fmt.Fprintf(opts.IO.Out, "created %s: %s\n", res.Dir, strings.Join(res.Files, ", "))
	fmt.Fprintf(opts.IO.ErrOut, "Replace the TODOs, then run stax validate %s\n", res.SkillsDir)
	return nil
}
