package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/workflow"
)

type uninstallOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	Where  installScope
	Force  bool
	Keep   []string
	DryRun bool
}

func newUninstallCmd(f *factory, runF func(context.Context, *uninstallOptions) error) *cobra.Command {
	opts := &uninstallOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the skills stax installed, and only those",
		Long: `Remove from each runtime's skills folder the skills stax installed there,
as its install record lists them. Skills of yours in the same folder stay.

A skill stax installed that you changed since (verify --installed lists
the changes) is not removed: the command fails (exit 5) and names the
files. --keep NAME leaves it in place as your own, removed from the record;
--force removes it, moving it to a backup under .stax/backup.

--dry-run prints, per folder, the skills it would remove and keep, and
those you changed, and removes nothing.`,
		Example: `  stax uninstall --runtime claude-code,cursor
  stax uninstall --scope user --runtime codex
  stax uninstall --keep pdf         # remove the others; keep pdf as your own
  stax uninstall --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runUninstall(cmd.Context(), opts)
		},
	}
	opts.Where.addFlags(cmd, "runtimes to uninstall from")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "remove skills you changed too, moving them to a backup under .stax/backup")
	cmd.Flags().StringSliceVar(&opts.Keep, "keep", nil, "skills to leave in place as your own, comma-separated")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the skills it would remove and keep, and remove nothing")
	return cmd
}

func runUninstall(ctx context.Context, opts *uninstallOptions) error {
	env, _, err := opts.Env(nil) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	uopts := workflow.UninstallOptions{Where: opts.Where.where(), Force: opts.Force, Keep: opts.Keep}
	if opts.DryRun {
		plan, err := workflow.PlanUninstall(ctx, env, uopts)
		if err != nil {
			return err
		}
		return printPlan(opts.IO, opts.Global, plan)
	}
	results, err := workflow.Uninstall(ctx, env, uopts)
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, results)
	}
	for _, r := range results {
		fmt.Fprintf(opts.IO.Out, "%s: %s: removed %s%s\n", strings.Join(r.Runtimes, ","), r.Dir, plural(int64(len(r.Removed)), "skill"), listSuffix(r.Removed))
	}
	return nil
}

func listSuffix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}
