package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/workflow"
)

type inspectOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	Remote remoteOptions
	Target string
	Build  buildFlags
	Getenv func(string) string
}

func newInspectCmd(f *factory, runF func(context.Context, *inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{IO: f.IO, Global: f.Global, Env: f.Env, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "inspect REF|DIR",
		Short: "Show a package's manifest, layers, annotations and skills",
		Long: `Show a stax package: from the local store (NAME:TAG or NAME@DIGEST), from an
OCI layout (oci:PATH[:TAG|@DIGEST]), from a registry, or built on the fly from
a package directory or a git repository (git+https://HOST/PATH//SUBDIR#REF,
github.com/OWNER/REPO: its skills and their descriptions before installing
them) exactly as pack would build it.

A registry reference (HOST/REPO:TAG, or oci://HOST/REPO:TAG) is read from
its registry, reusing the blobs the local store holds; --offline reads the
local store instead. A name without a registry host is a tag of the local
store. For a local package every skill is listed with its frontmatter, read
from the skills layer and checked against the digest the config records for
it. For a remote package only the manifest and config are fetched: skills come
from the config, and from the layer only when the config lists none, as
other writers' packages do.`,
		Example: `  stax inspect example-skills:1.0.0
  stax inspect oci:./out:1.0.0 --output json
  stax inspect ghcr.io/acme/skills:1.0.0
  stax inspect examples
  stax inspect github.com/anthropics/skills`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInspect(cmd.Context(), opts)
		},
	}
	opts.Build.addBuild(cmd, "uncompressed skills layer to read or build", "when building DIR: ")
	opts.Remote.addOfflineFlag(cmd)
	opts.Remote.addFlags(cmd)
	return cmd
}

func runInspect(ctx context.Context, opts *inspectOptions) error {
	build, err := opts.Build.options(opts.Getenv)
	if err != nil {
		return err
	}
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Inspect(ctx, env, workflow.InspectOptions{Ref: opts.Target, Build: build, Scope: opts.Remote.lookupScope()})
	finish()
	if err != nil {
		return err
	}
	if err := writeInspect(opts, res); err != nil || !res.Mismatched() {
		return err
	}
	// Shown, but a package whose skills are not what its config says
	// fails verification.
	return errdefs.MarkDataLoss(errReported)
}
