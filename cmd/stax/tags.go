package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/workflow"
)

type tagsOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Remote remoteOptions
	Ref    string
	All    bool
	Local  bool
	Env    newEnv
}

func newTagsCmd(f *factory, runF func(context.Context, *tagsOptions) error) *cobra.Command {
	opts := &tagsOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "tags REF",
		Short: "List the tags of a repository, highest version first",
		Long: `List the tags of the repository REF names, asking its registry (or reading
an oci: layout; the local store for --local or a name without a registry
host, as stax pack -t writes one), or of the git repository a git
reference names, with one git ls-remote (--local: the REFs the local store
keeps packages of, built from that repository and SUBDIR, each with the
plugin and skills chosen, as in v1.0.0?skill=pdf). Version tags (1.2.0, v1.2.0,
2.0.0-rc.1) come first, highest version first, then the other tags by
name. Tags named after a digest (cosign's sha256-<hex>.sig, .att, .sbom)
are hidden unless --all. A tag or digest in REF is ignored.

A reference with no tag names the highest release tag listed here (not a
pre-release), else latest.`,
		Example: `  stax tags ghcr.io/acme/org-skills
  stax tags ghcr.io/acme/org-skills --all --output json
  stax tags oci:./build
  stax tags github.com/anthropics/skills`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTags(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "also list the tags named after digests (sha256-<hex>.sig, .att, .sbom)")
	cmd.Flags().BoolVar(&opts.Local, "local", false, "list the tags the local store holds for the repository, not the registry's")
	opts.Remote.addFlags(cmd)
	return cmd
}

func runTags(ctx context.Context, opts *tagsOptions) error {
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Tags(ctx, env, workflow.TagsOptions{Ref: opts.Ref, All: opts.All, Local: opts.Local})
	finish()
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	return printTags(opts.IO, res)
}
