package main

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/target"
)

type packOptions struct {
	IO     *IOStreams
	Global *globalOptions
	// Remote reaches the registries of the packages stax.yaml declares.
	Remote    remoteOptions
	Dir       string
	Tag       string
	Overrides project.Definition
	Build     buildFlags
	Getenv    func(string) string
}

type packResult struct {
	Reference    string               `json:"reference"`
	Digest       string               `json:"digest"`
	MediaType    string               `json:"mediaType"`
	ArtifactType string               `json:"artifactType"`
	Size         int64                `json:"size"`
	Layers       []ocispec.Descriptor `json:"layers"`
	Skills       int                  `json:"skills"`
	Warnings     any                  `json:"warnings"`
	Notices      []string             `json:"notices"`
}

func newPackCmd(f *factory, runF func(context.Context, *packOptions) error) *cobra.Command {
	opts := &packOptions{IO: f.IO, Global: f.Global, Getenv: f.Getenv}
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
	var tagRef *reference.Reference
	if opts.Tag != "" {
		ref, err := reference.Parse(opts.Tag)
		if err != nil {
			return errdefs.Invalid(err)
		}
		if ref.Digest != "" {
			return errdefs.Invalid(fmt.Errorf("--tag %s: a digest is computed, not chosen; give a tag", opts.Tag))
		}
		tagRef = &ref
	}
	p, err := project.Open(opts.Dir)
	if err != nil {
		return err
	}
	opener, err := opts.Remote.opener(opts.Global)
	if err != nil {
		return err
	}
	dst, err := openDestination(ctx, opts.Global, tagRef)
	if err != nil {
		return err
	}
	defer dst.Close()
	res, err := buildInto(ctx, p, dst, tagRef, resolve.Options{Opener: opener, MaxSize: build.MaxSize, Build: build})
	if err != nil {
		// A layout this pack created is removed: a failed pack leaves none.
		return target.DiscardAfter(dst, err)
	}
	ref := dst.Ref
	if opts.Global.json() {
		out := packResult{
			Reference: ref.Familiar(), Digest: res.Descriptor.Digest.String(),
			MediaType: res.Descriptor.MediaType, ArtifactType: res.Descriptor.ArtifactType,
			Size: res.Descriptor.Size, Layers: res.Layers, Skills: len(res.Config.Skills),
			Warnings: []any{}, Notices: res.Notices,
		}
		if res.Report != nil {
			out.Warnings = res.Report.Warnings
		}
		if out.Notices == nil {
			out.Notices = []string{}
		}
		return writeJSON(opts.IO.Out, out)
	}
	printBuildNotes(opts.IO, opts.Global, res)
	fmt.Fprintf(opts.IO.ErrOut, "Packed %s %s (%s) as %s\n", res.Definition.Name, res.Definition.Version, plural(int64(len(res.Config.Skills)), "skill"), ref.Familiar())
	fmt.Fprintln(opts.IO.Out, res.Descriptor.Digest)
	return nil
}

// buildInto builds the package of p into dst and tags it there, as
// tagRef says or as its name and version say.
func buildInto(ctx context.Context, p *project.Project, dst *target.Target, tagRef *reference.Reference, opts resolve.Options) (*pack.Result, error) {
	res, graph, err := resolve.BuildProject(ctx, p, dst, opts)
	if err != nil {
		return nil, err
	}
	defer graph.Close()
	if dst.Ref, err = tagReference(tagRef, res.Definition); err != nil {
		return nil, err
	}
	if err := dst.TagAs(ctx, res.Descriptor); err != nil {
		return nil, err
	}
	return res, nil
}
