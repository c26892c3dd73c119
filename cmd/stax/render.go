package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/render"
	"github.com/stax-dev/stax/pkg/workflow"
)

type renderOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	Skill  string
	Args   []string
	// SkillsDir is --dir: where a skill given by name is looked up.
	SkillsDir   string
	Budget      int64
	BudgetBytes int64
	Workspace   string
	SkillDir    string
	MaxSize     byteSize
	// AllowHiddenText is --allow-hidden-text.
	AllowHiddenText bool
}

func newRenderCmd(f *factory, runF func(context.Context, *renderOptions) error) *cobra.Command {
	opts := &renderOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "render SKILL [-- ARGS...]",
		Short: "Show what an agent receives when a skill is invoked",
		Long: `Assemble a skill the way a runtime loads a stateful skill: the
SKILL.md body, CALIBRATION.md, EXAMPLES.md, then MEMORY.md with the most
recent entries first, with $ARGUMENTS, $ARGUMENTS[N], ${STAX_SKILL_DIR} and
${STAX_WORKSPACE} substituted. The text goes to stdout, the load order and
sizes to stderr.

SKILL is a skill directory, the name of a skill in the skills directory
(--dir, default: the skills directory of the package in the current
directory), or REF#name for a skill inside a package in the local store or
an oci: layout, read from the package without extracting it.

--budget N (tokens, estimated as bytes/4 rounded up) or --budget-bytes N
fits the text to a context budget: the oldest MEMORY.md entries are dropped
first, then EXAMPLES.md blocks from the last. The SKILL.md body and
CALIBRATION.md are never cut: if they alone exceed the budget, render
refuses (exit 1) and says how far over they are.`,
		Example: `  stax render examples/skills/incident-postmortem -- INC-42
  stax render incident-postmortem --dir examples/skills --budget 700
  stax render example-skills:1.0.0#incident-postmortem --output json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			switch {
			case dash == 0:
				return errdefs.Invalid(errors.New("name the skill before --, as in: stax render SKILL -- ARGS"))
			case dash < 0 && len(args) > 1:
				return errdefs.Invalid(fmt.Errorf(
					"put the skill's arguments after --, so that they are never read as flags: stax render %s -- %s",
					args[0], strings.Join(args[1:], " ")))
			case dash > 1:
				return errdefs.Invalid(fmt.Errorf("render takes one skill; put its arguments after --"))
			}
			opts.Skill, opts.Args = args[0], args[1:]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRender(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&opts.SkillsDir, "dir", "", "skills directory to find SKILL in by name (default: the current package's)")
	flags.Int64Var(&opts.Budget, "budget", 0, "context budget in tokens (estimated as bytes/4, rounded up); 0 for none")
	flags.Int64Var(&opts.BudgetBytes, "budget-bytes", 0, "context budget in bytes; 0 for none")
	flags.StringVar(&opts.Workspace, "workspace", "", "value of ${STAX_WORKSPACE} (default: the current directory)")
	flags.StringVar(&opts.SkillDir, "skill-dir", "", "value of ${STAX_SKILL_DIR} (default: the skill directory; left as written for REF#name)")
	addMaxSizeFlag(cmd, &opts.MaxSize, "uncompressed skills layer to read for REF#name")
	addAllowHiddenTextFlag(cmd, &opts.AllowHiddenText, "render")
	return cmd
}

func runRender(ctx context.Context, opts *renderOptions) error {
	if opts.Budget < 0 || opts.BudgetBytes < 0 {
		return errdefs.Invalid(errors.New("--budget and --budget-bytes must not be negative"))
	}
	env, _, err := opts.Env(nil) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	res, err := workflow.Render(ctx, env, workflow.RenderOptions{
		Skill: opts.Skill, SkillsDir: opts.SkillsDir, Arguments: opts.Args, Workspace: opts.Workspace, SkillDir: opts.SkillDir,
		Budget: render.Budget{Tokens: opts.Budget, Bytes: opts.BudgetBytes},
		Limits: layers.Limits{MaxSize: opts.MaxSize.Limit()}, AllowHiddenText: opts.AllowHiddenText,
	})
	if res == nil {
		return withAllowHiddenTextHint(err)
	}
	return printRendered(opts, res, withAllowHiddenTextHint(err))
}
