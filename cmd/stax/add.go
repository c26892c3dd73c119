package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/workflow"
)

func newAddCmd(f *factory, runF func(context.Context, *installOptions) error) *cobra.Command {
	opts := &installOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "add SOURCE... [--version RANGE]",
		Short: "Add packages to install.sources of stax.yaml, and install",
		Long: `Add each SOURCE (a registry reference, an oci: layout, a package
directory or a git repository: see docs/sources.md) to install.sources of stax.yaml — in place of the source of the
same package, else after the last — and install every source as stax
install does. stax.yaml is created if there is none; only the line of the
source changes, so comments, order and formatting of the rest of the file
stay. It is written once the install succeeded: a failed install leaves
stax.yaml, stax.lock and the runtime folders as they were.

--version RANGE adds the one SOURCE's repository as {ref, version}: stax
installs, now and on every install, the highest version its tags have in
the range (^1.2.0, ~1.2, 1.x, >=1.0.0 <2.0.0, 1.0.0 - 2.0.0, ||; a
pre-release only when the range names one), and stax.lock records the
version, tag and digest it resolved to. A range nothing matches fails
(exit 4) listing the tags there are; for a git repository the range
chooses among its semver tags.

--plugin NAME[@MARKETPLACE] takes one plugin of a git SOURCE's
marketplace, --skill NAME (repeatable) only those skills; stax.yaml keeps
the choice. Someone else's skill that breaks a content rule is one warning
naming the skill and the rule; --strict refuses it.`,
		Example: `  stax add github.com/anthropics/skills --plugin document-skills
  stax add ghcr.io/acme/org-skills --version ^2.0.0
  stax add ghcr.io/acme/team-skills:1.4.0 ./local-skills`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sources = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInstall(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd)
	opts.addVersionFlag(cmd)
	opts.Choice.addFlags(cmd)
	return cmd
}

func newRemoveCmd(f *factory, runF func(context.Context, *installOptions) error) *cobra.Command {
	opts := &installOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "remove SOURCE...",
		Short: "Remove packages from install.sources of stax.yaml, and their skills",
		Long: `Drop each SOURCE from install.sources of stax.yaml — a reference matches
the source of its repository whatever the tag, digest or range — and
install the sources that remain, as stax install does, in one transaction:
the skills only a dropped source supplied are removed, and a skill another
source also supplies is installed from that one. stax.yaml is written once
the install succeeded. A SOURCE that is not listed fails (exit 1) and
changes nothing. --dry-run prints the plan and writes nothing.`,
		Example: `  stax remove ghcr.io/acme/org-skills --dry-run
  stax remove ghcr.io/acme/org-skills`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sources = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRemove(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd)
	opts.addDryRunFlag(cmd)
	return cmd
}

func runRemove(ctx context.Context, opts *installOptions) error {
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Remove(ctx, env, workflow.RemoveOptions{InstallOptions: opts.options(), Refs: opts.Sources})
	finish()
	if err != nil {
		return withAllowHiddenTextHint(err)
	}
	return printInstall(opts.IO, opts.Global, res)
}
