package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/workflow"
)

type resolveOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Remote remoteOptions
	Ref    string
	Build  buildFlags
	Getenv func(string) string
	Env    newEnv
}

func newResolveCmd(f *factory, runF func(context.Context, *resolveOptions) error) *cobra.Command {
	opts := &resolveOptions{IO: f.IO, Global: f.Global, Getenv: f.Getenv, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "resolve REF",
		Short: "Print the manifest digest a reference names",
		Long: `Print the digest of the manifest REF names, without downloading anything
else. A registry reference (HOST/REPO:TAG, or oci://HOST/REPO:TAG) is
resolved by its registry, as oras, crane and helm do; --offline reads the
local store instead. A name without a registry host (NAME:TAG) is a tag of
the local store.`,
		Example: `  stax resolve ghcr.io/acme/skills:1.0.0
  DIGEST=$(stax resolve example-skills:1.0.0)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runResolve(cmd.Context(), opts)
		},
	}
	opts.Build.addBuild(cmd, "uncompressed skills layer to build", "when building DIR: ")
	opts.Remote.addOfflineFlag(cmd)
	opts.Remote.addFlags(cmd)
	return cmd
}

func runResolve(ctx context.Context, opts *resolveOptions) error {
	build, err := opts.Build.options(opts.Getenv)
	if err != nil {
		return err
	}
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Resolve(ctx, env, workflow.ResolveOptions{Ref: opts.Ref, Build: build, Scope: opts.Remote.lookupScope()})
	finish()
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintln(opts.IO.Out, res.Digest)
	return err
}
