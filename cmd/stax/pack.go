package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/workflow"
)

type packOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	// Remote reaches the registries of the packages stax.yaml declares.
	Remote    remoteOptions
	Dir       string
	Tag       string
	Overrides staxyaml.Definition
	Build     buildFlags
	Getenv    func(string) string
}

func newPackCmd(f *factory, runF func(context.Context, *packOptions) error) *cobra.Command {
	opts := &packOptions{IO: f.IO, Global: f.Global, Env: f.Env, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "pack [DIR]",
		Short: "Validate a package and build it into the local store",
		Long: `Validate the skills of DIR (a package root with stax.yaml, or a bare skills
directory), build the stax package artifact, store it in the local OCI layout
store, tag it, and print its manifest digest.

The build is reproducible: the same files give the same digest on any
machine. The creation annotation comes from --created, else
SOURCE_DATE_EPOCH, else the Unix epoch.`,
		Example: `  stax pack examples
  stax pack ./skills -t acme/skills:1.2.0
  stax pack . -t oci:./out:1.2.0
  DIGEST=$(stax pack .)`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPack(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&opts.Tag, "tag", "t", "", "reference to tag: NAME[:TAG] in the local store, or oci:PATH[:TAG] (default NAME:VERSION)")
	flags.StringVar(&opts.Overrides.Name, "name", "", "package name (overrides stax.yaml)")
	flags.StringVar(&opts.Overrides.Version, "version", "", "package version (overrides stax.yaml)")
	flags.StringVar(&opts.Overrides.Description, "description", "", "package description (overrides stax.yaml)")
	flags.StringVar(&opts.Overrides.Author, "author", "", "package author (overrides stax.yaml)")
	flags.StringVar(&opts.Overrides.License, "license", "", "package license (overrides stax.yaml)")
	opts.Build.addStrict(cmd, "")
	opts.Build.addBuild(cmd, "uncompressed skills layer", "")
	opts.Remote.addFlags(cmd)
	return cmd
}

func runPack(ctx context.Context, opts *packOptions) error {
	build, err := opts.Build.options(opts.Getenv)
	if err != nil {
		return err
	}
	build.Overrides = opts.Overrides
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: opts.Dir, Tag: opts.Tag, Build: build})
	finish()
	if err != nil {
		return err
	}
	return printPacked(opts.IO, opts.Global, res)
}
