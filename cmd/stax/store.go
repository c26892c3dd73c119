package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

func newStoreCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Look after the local store",
		Long: `Look after the local store, the OCI image layout at $STAX_HOME/store where
stax keeps the packages it packs and fetches (--oci-layout names another).`,
	}
	cmd.AddCommand(newStorePruneCmd(f, nil))
	return cmd
}

type storePruneOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	DryRun bool
}

func newStorePruneCmd(f *factory, runF func(context.Context, *storePruneOptions) error) *cobra.Command {
	opts := &storePruneOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Remove from the local store what no tag reaches",
		Long: `Remove from the local store the packages no tag names and the blobs
nothing kept refers to, and print what was freed. A tag keeps its package
whole (config, layers, the manifests of an index) with its signatures,
SBOMs and attestations and their referrers index, and so does the
stax.lock of each project stax installed (registered in
$STAX_HOME/store-roots): install --frozen finds what it pins. What goes:
packages fetched by digest alone and those a moved tag left behind that
no stax.lock pins, with their signatures, and blobs a killed command
left. They are fetched again when a command needs them, which --offline
cannot do. A project whose stax.lock is gone keeps nothing, and is
dropped from the roots. A package built from a git source is kept under
its git reference (git+URL//SUBDIR#REF), a tag as any other.

prune also removes from the git cache ($STAX_HOME/git) the repositories
no registered project's stax.lock takes a git source from, but one
another stax is using; the next command that needs one fetches it again.
With --oci-layout the git cache is left alone.

The store's index.json is bounded (64 MiB, some 250,000 tags); a pull
that would take it past is refused (exit 2) and names this command.

prune holds the store's lock, so other commands on the store wait for it.
--dry-run prints what it would remove, and removes nothing.`,
		Example: `  stax store prune --dry-run
  stax store prune --output json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runStorePrune(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print what it would remove, and remove nothing")
	return cmd
}

func runStorePrune(ctx context.Context, opts *storePruneOptions) error {
	env, _, err := opts.Env(nil) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	res, err := workflow.PruneStore(ctx, env, workflow.PruneOptions{DryRun: opts.DryRun})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	verb := "removed"
	if res.DryRun {
		verb = "would remove"
	}
	fmt.Fprintf(opts.IO.Out, "%s: %s %s no tag reaches, %s and %s (%s)\n", termtext.Escape(res.Store), verb,
		plural(int64(len(res.Manifests)), "manifest"), plural(int64(len(res.Tags)), "referrers tag"),
		plural(int64(res.Blobs), "blob"), plural(res.Bytes, "byte"))
	for _, d := range res.Manifests {
		fmt.Fprintf(opts.IO.Out, "  %s\n", d)
	}
	for _, tag := range res.Tags {
		fmt.Fprintf(opts.IO.Out, "  %s (referrers tag)\n", termtext.Escape(tag))
	}
	for _, p := range res.DroppedProjects {
		fmt.Fprintf(opts.IO.Out, "  %s: its stax.lock is gone; what it pinned is no longer kept\n", termtext.Escape(p))
	}
	if git := res.GitCache; git.Repositories > 0 {
		fmt.Fprintf(opts.IO.Out, "git cache: %s %s no stax.lock takes a git source from (%s)\n", verb, plural(int64(git.Repositories), "repository"), plural(git.Bytes, "byte"))
	}
	return nil
}
