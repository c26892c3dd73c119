package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/bump"
	"github.com/stax-dev/stax/pkg/workflow"
)

type bumpOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Skill  string
	// SkillsDir is --dir: where a skill given by name is looked up.
	SkillsDir string
	partFlags
	DryRun bool
}

func newBumpCmd(f *factory, runF func(context.Context, *bumpOptions) error) *cobra.Command {
	opts := &bumpOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "bump SKILL [--patch|--minor|--major]",
		Short: "Raise a skill's version, keeping MEMORY.md in sync",
		Long: `Raise the version of a skill's SKILL.md (its version field, or metadata.version
when that is where it is), set the version in MEMORY.md's frontmatter to the
same value and its lastUpdated to today (UTC; SOURCE_DATE_EPOCH when set),
adding lastUpdated after the version when it is missing. Only those values
change: every other byte of both files stays as it was, quoting included.

Any change to MEMORY.md, EXAMPLES.md or CALIBRATION.md needs at least a patch
bump (push and validate --against refuse one without), the default; --minor and --major are for changes to the
instructions. SKILL is a skill directory, or the name of a skill in the
skills directory (--dir, default: the current package's).`,
		Example: `  stax bump examples/skills/incident-postmortem
  stax bump incident-postmortem --dir examples/skills --minor`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Skill = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runBump(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&opts.SkillsDir, "dir", "", "skills directory to find SKILL in by name (default: the current package's)")
	opts.partFlags.addFlags(cmd, "raise the %s version", bump.Patch)
	flags.BoolVar(&opts.DryRun, "dry-run", false, "say what would change, without writing")
	return cmd
}

func runBump(ctx context.Context, opts *bumpOptions) error {
	part, err := opts.partFlags.part()
	if err != nil {
		return err
	}
	// Bump reads no store nor registry: its Env needs no opener.
	env := &workflow.Env{Getenv: opts.Global.getenv}
	res, err := workflow.Bump(ctx, env, workflow.BumpOptions{Skill: opts.Skill, SkillsDir: opts.SkillsDir, Part: part, DryRun: opts.DryRun})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	return printBump(opts.IO.Out, res.Result, res.DryRun)
}

func printBump(w io.Writer, res *bump.Result, dryRun bool) error {
	verb := "bumped"
	if dryRun {
		verb = "would bump"
	}
	fmt.Fprintf(w, "%s %s: %s → %s (%s)\n", verb, res.Dir, res.From, res.To, res.Part)
	for _, c := range res.Changes {
		from := ""
		if c.From != res.From {
			from = fmt.Sprintf(" (was %s)", c.From)
		}
		if _, err := fmt.Fprintf(w, "  %s:%d  %s%s\n", c.File, c.Line, c.Field, from); err != nil {
			return err
		}
	}
	return nil
}
