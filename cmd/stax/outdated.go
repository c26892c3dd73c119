package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/workflow"
)

type outdatedOptions struct {
	IO       *IOStreams
	Global   *globalOptions
	Env      newEnv
	Remote   remoteOptions
	Dir      string
	ExitCode bool
}

func newOutdatedCmd(f *factory, runF func(context.Context, *outdatedOptions) error) *cobra.Command {
	opts := &outdatedOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "outdated",
		Short: "Show the packages that have newer versions than stax.lock holds",
		Long: `For each source of install.sources that is a reference, and each
dependency stax.lock records, show the version locked, the version stax
update would install (WANTED: the highest its range allows, the tag it
names, or for a source naming neither the highest release) and the highest
release published (LATEST). A wanted tag that names another digest than
the one locked (it was pushed over) is marked "tag moved". A git source
is compared with its repository's tags and branches (one git ls-remote):
one naming a branch shows the branch and its short commit (main@1a2b3c4),
outdated once the branch moved. The tags of each repository are listed
once, and the repositories asked at once, up to --concurrency. Nothing is
changed.

outdated exits 0 whether or not something is outdated; with --exit-code it
exits 1 when a package has a newer version wanted or published, its tag
moved, or it is not locked yet, for a CI job that opens update pull
requests.`,
		Example: `  stax outdated
  stax outdated --exit-code --output json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runOutdated(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", ".", "the project: where stax.yaml and stax.lock are")
	cmd.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit 1 when a package is outdated, 0 when none is")
	opts.Remote.addFlags(cmd)
	cmd.Flags().IntVar(&opts.Remote.Concurrency, "concurrency", workflow.DefaultListingConcurrency, "repositories to ask at once")
	return cmd
}

func runOutdated(ctx context.Context, opts *outdatedOptions) error {
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Outdated(ctx, env, workflow.OutdatedOptions{ProjectDir: opts.Dir})
	finish()
	if err != nil {
		return err
	}
	if opts.Global.json() {
		err = writeJSON(opts.IO.Out, res)
	} else {
		err = printOutdated(opts.IO, res)
	}
	if err != nil || !opts.ExitCode || !res.Outdated() {
		return err
	}
	// The result is printed; only the exit code is left to say.
	return errdefs.Invalid(errReported)
}
