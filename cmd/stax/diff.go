package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/workflow"
)

type diffOptions struct {
	IO       *IOStreams
	Global   *globalOptions
	Env      newEnv
	Remote   remoteOptions
	A, B     string
	ExitCode bool
	Build    buildFlags
	Getenv   func(string) string
}

func newDiffCmd(f *factory, runF func(context.Context, *diffOptions) error) *cobra.Command {
	opts := &diffOptions{IO: f.IO, Global: f.Global, Env: f.Env, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show which skills, files and frontmatter fields differ between two packages",
		Long: `Compare the skills of two packages. A and B are registry references
(HOST/REPO:TAG, read from the registry, reusing the blobs the local store
holds; --offline reads the local store instead), names of the local store
(NAME:TAG), OCI layouts (oci:PATH[:TAG|@DIGEST]), or package directories
and git repositories (git+https://HOST/PATH//SUBDIR#REF, github.com/OWNER/REPO),
built on the fly exactly as pack builds them.

Skills are matched by their top-level directory. For each skill only one side
has, diff says so; for each skill both have with different content, it lists
the files added, removed and changed (by content digest and execute bit) and
the frontmatter fields added, removed and changed, with their values. The skills
layers are streamed through the safe layer reader, never extracted, and checked
against their digests. The package names and versions are compared too, for
information: they do not make two packages differ.

diff exits 0 whether or not the packages differ; with --exit-code it exits 1
when they differ. Errors keep their own exit codes either way.`,
		Example: `  stax diff acme/skills:1.0.0 acme/skills:1.1.0
  stax diff ghcr.io/acme/skills:1.0.0 .          # the published package against the working tree
  stax diff oci:./out:1.0.0 acme/skills:1.0.0 --exit-code
  stax diff a b --output json | jq '.changed[].frontmatter'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.A, opts.B = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDiff(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.ExitCode, "exit-code", false, "exit 1 when the packages differ, 0 when they hold the same skills")
	opts.Build.addBuild(cmd, "uncompressed skills layer to read or build", "when building a directory: ")
	opts.Remote.addFlags(cmd)
	opts.Remote.addOfflineFlag(cmd)
	return cmd
}

func runDiff(ctx context.Context, opts *diffOptions) error {
	build, err := opts.Build.options(opts.Getenv)
	if err != nil {
		return err
	}
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Diff(ctx, env, workflow.DiffOptions{
		A: opts.A, B: opts.B, Build: build, Scope: opts.Remote.lookupScope(),
		Built: func(built *pack.Result) { printBuildNotes(opts.IO, opts.Global, built) },
	})
	finish()
	if err != nil {
		return err
	}
	if opts.Global.json() {
		err = writeJSON(opts.IO.Out, res)
	} else {
		err = printDiff(opts.IO, res)
	}
	if err != nil || !opts.ExitCode || res.Identical {
		return err
	}
	// The result is printed; only the exit code is left to say.
	return errdefs.Invalid(errReported)
}
