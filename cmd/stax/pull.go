package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

type pullOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Remote  remoteOptions
	Ref     string
	Output  string
	MaxSize string
}

func newPullCmd(streams *IOStreams, global *globalOptions) *cobra.Command {
	opts := &pullOptions{IO: streams, Global: global}
	cmd := &cobra.Command{
		Use:   "pull REF",
		Short: "Fetch a package into the local store, and optionally extract its skills",
		Long: `Fetch the package REF (a registry reference or oci:PATH[:TAG|@DIGEST]) into
the local store, verifying every digest and size. The manifest and config
are checked before any layer is fetched: REF must be a stax package (one
labelled as an agent by another stax writer is read too, with a notice).

With -o DIR the skills are extracted into DIR through the safe layer reader:
into a staging directory renamed into place only when the whole layer
checked out. DIR must not exist or be empty; nothing is written on failure.`,
		Example: `  stax pull ghcr.io/acme/skills:1.0.0
  stax pull ghcr.io/acme/skills@sha256:… -o .claude/skills
  stax pull localhost:5000/team/skills:2.0.0 -o /tmp/skills --output json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			return runPull(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output-dir", "o", "", "extract the skills into this directory")
	cmd.Flags().StringVar(&opts.MaxSize, "max-size", "64MiB", "largest package to accept; 0 for no limit")
	opts.Remote.addFlags(cmd)
	return cmd
}

func runPull(ctx context.Context, opts *pullOptions) error {
	ref, err := reference.Parse(opts.Ref)
	if err != nil {
		return exitcode.Wrap(exitcode.Validation, err)
	}
	if ref.Tag == "" && ref.Digest == "" {
		ref.Tag = "latest"
	}
	maxSize, err := parseMaxSize(opts.MaxSize)
	if err != nil {
		return err
	}
	opener, err := opts.Remote.opener(opts.Global)
	if err != nil {
		return err
	}
	src, err := opener.Open(ctx, ref)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := opener.OpenLocal(ctx, ref, store.ReadWrite)
	if err != nil {
		return err
	}
	defer dst.Close()

	res, err := copyPackage(ctx, opts.IO, &opts.Remote, src, dst, transfer.Options{MaxSize: maxSize})
	if err != nil {
		return err
	}
	if opts.Output != "" {
		if err := extractSkills(ctx, dst, res, opts.Output, maxSize); err != nil {
			return err
		}
	}
	return printTransfer(opts.IO, opts.Global, "Pulled", ref, res, opts.Output)
}

// extractSkills writes the skills layer of a stored package into dir.
func extractSkills(ctx context.Context, from *target.Target, res *transfer.Result, dir string, maxSize int64) error {
	layer := res.Package.Skills
	if layer == nil {
		return exitcode.Wrap(exitcode.Materialization, fmt.Errorf("%s has no skills layer to extract", from.Name()))
	}
	rc, err := from.Fetch(ctx, *layer)
	if err != nil {
		return from.Explain(err)
	}
	defer rc.Close()
	if _, err := layers.Extract(rc, dir, layers.ReadOptions{MaxSize: maxSize, Digest: layer.Digest}); err != nil {
		return extractError(dir, err)
	}
	return nil
}

// extractError gives a failed extraction its exit code: content that does
// not match its digest fails verification; an archive stax refuses cannot
// be materialized; anything else is the local file system.
func extractError(dir string, err error) error {
	var mismatch *layers.DigestMismatchError
	var unsafe *layers.UnsafeEntryError
	var size *layers.SizeError
	switch {
	case errors.As(err, &mismatch):
		return exitcode.Wrap(exitcode.Verification, fmt.Errorf("extract into %s: %w", dir, err))
	case errors.As(err, &unsafe), errors.As(err, &size):
		return exitcode.Wrap(exitcode.Materialization, fmt.Errorf("extract into %s: %w", dir, err))
	}
	return exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("extract into %s: %w", dir, err))
}
