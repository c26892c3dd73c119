package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

type resolveOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Remote remoteOptions
	Ref    string
	Build  buildFlags
	Getenv func(string) string
}

type resolveResult struct {
	Reference string `json:"reference"`
	Digest    string `json:"digest"`
	MediaType string `json:"mediaType"`
	Size      int64  `json:"size"`
	Source    string `json:"source"`
}

func newResolveCmd(f *factory, runF func(context.Context, *resolveOptions) error) *cobra.Command {
	opts := &resolveOptions{IO: f.IO, Global: f.Global, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "resolve REF",
		Short: "Print the manifest digest a reference names",
		Long: `Print the digest of the manifest REF names, without downloading anything
else: from the local store when it has REF, else from the registry
(--remote: the registry only).`,
		Example: `  stax resolve ghcr.io/acme/skills:1.0.0 --remote
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
	opts.Remote.addRemoteOnlyFlag(cmd)
	opts.Remote.addFlags(cmd)
	return cmd
}

func runResolve(ctx context.Context, opts *resolveOptions) error {
	src, err := openArgument(ctx, opts.IO, opts.Global, &opts.Remote, &opts.Build, opts.Getenv, opts.Ref)
	if err != nil {
		return err
	}
	defer src.Close()
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, resolveResult{
			Reference: src.Name, Digest: src.Descriptor.Digest.String(),
			MediaType: src.Descriptor.MediaType, Size: src.Descriptor.Size, Source: string(src.Kind),
		})
	}
	_, err = fmt.Fprintln(opts.IO.Out, src.Descriptor.Digest)
	return err
}
