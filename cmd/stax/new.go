package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/stax-dev/stax/pkg/workflow"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/scaffold"
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
			return runNewSkill(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Stateful, "stateful", false, "add MEMORY.md, EXAMPLES.md and CALIBRATION.md")
	return cmd
}

func runNewSkill(opts *newSkillOptions) error {
	dir, err := workflow.SkillsDir(opts.Dir)
	if err != nil {
		return err
	}
	today, err := pack.SourceDate(opts.Global.getenv)
	if err != nil {
		return err
	}
	res, err := scaffold.Skill(scaffold.Options{SkillsDir: dir, Name: opts.Name, Stateful: opts.Stateful, Today: today})
	switch {
	case errors.Is(err, scaffold.ErrInvalidName), errors.Is(err, scaffold.ErrExists):
		return errdefs.Invalid(err)
	case err != nil:
		return errdefs.IO(err)
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	fmt.Fprintf(opts.IO.Out, "created %s: %s\n", res.Dir, strings.Join(res.Files, ", "))
	fmt.Fprintf(opts.IO.ErrOut, "Replace the TODOs, then run stax validate %s\n", dir)
	return nil
}
