package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/workflow"
)

type updateOptions struct {
	installOptions
	Latest bool
	To     string
}

func newUpdateCmd(f *factory, runF func(context.Context, *updateOptions) error) *cobra.Command {
	opts := &updateOptions{installOptions: installOptions{IO: f.IO, Global: f.Global, Env: f.Env}}
	cmd := &cobra.Command{
		Use:   "update [SOURCE...]",
		Short: "Move packages to the newest versions their ranges allow, with a plan",
		Long: `Resolve the sources of install.sources again — a ranged source to the
highest version its range allows, a source naming a tag to what the tag
names now, one naming neither to the highest release — and print the plan:
per package the old and new version and digest, per skill whether it is
added, removed or changed. Then install it as stax install does, in one
transaction with stax.lock. Named SOURCEs (a reference matches its
repository's source whatever the tag or range) are updated alone; the
others stay at the digests of stax.lock.

--dry-run prints the plan and changes nothing. --latest first moves the
range of each source updated, when it does not allow the highest release
published, to ^ that release, rewriting its line of stax.yaml (written
once the install succeeded). When nothing is newer, nothing changes, and
update says so.

--to VERSION moves the one SOURCE named to that version, lower or higher:
a range that does not allow it becomes ^VERSION, as --latest moves one,
and a source naming a tag names the tag of VERSION instead. stax.lock
then keeps the version on every install until the next update. A git
source is moved by naming the tag of VERSION (#v1.2.0) in stax.yaml,
in place of its REF or range. To roll
back every source at once, restore stax.lock (git checkout stax.lock) and
run stax install.`,
		Example: `  stax update --dry-run
  stax update
  stax update ghcr.io/acme/org-skills --latest
  stax update ghcr.io/acme/org-skills --to 1.2.0`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sources = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runUpdate(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd)
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the plan, and change nothing")
	cmd.Flags().BoolVar(&opts.Latest, "latest", false, "move each range that does not allow the highest release to ^ that release, in stax.yaml")
	cmd.Flags().StringVar(&opts.To, "to", "", "move the one SOURCE named to this `VERSION`, in its range or out of it (the range follows)")
	return cmd
}

func runUpdate(ctx context.Context, opts *updateOptions) error {
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Update(ctx, env, workflow.UpdateOptions{
		InstallOptions: opts.options(), Refs: opts.Sources, Latest: opts.Latest, To: opts.To,
	})
	finish()
	if err != nil {
		return withAllowHiddenTextHint(err)
	}
	return printUpdate(opts.IO, opts.Global, res)
}
