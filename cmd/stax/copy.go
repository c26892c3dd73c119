package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/workflow"
)

type copyOptions struct {
	IO          *IOStreams
	Global      *globalOptions
	Remote      remoteOptions
	Source      string
	Destination string
	NoReferrers bool
	// WithDependencies copies the packages the package depends on too.
	WithDependencies bool
	MaxSize          byteSize
	Verify           verifyFlags
}

func newCopyCmd(f *factory, runF func(context.Context, *copyOptions) error) *cobra.Command {
	opts := &copyOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "copy SRC DST",
		Short: "Copy a package or image between registries and OCI layouts, with its signatures",
		Long: `Copy the package SRC to DST: registry to registry, or to and from an OCI
layout (oci:PATH[:TAG|@DIGEST]). SRC may also be any OCI image index or image
manifest, such as a multi-platform container image: it is copied whole, every
manifest read and every size checked before any blob moves, and the result
says what it was ("image index, 2 platforms"). Pull and install take stax
packages only. Artifacts that refer to the package, such as
its signatures, are copied too unless --no-referrers is given, through the
OCI referrers API or, where a registry lacks it, the referrers tag schema.
Cosign's tag-based signatures (the sha256-HEX.sig, .att and .sbom tags of the
package's digest) are copied as well. DST without a tag or digest takes SRC's
tag.`,
		Example: `  stax copy ghcr.io/acme/skills:1.0.0 registry.internal/acme/skills:1.0.0
  stax copy ghcr.io/acme/skills:1.0.0 oci:./mirror
  stax copy oci:./mirror:1.0.0 localhost:5000/acme/skills
  stax copy oci:./bin/image ghcr.io/acme/stax:1.0.0`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source, opts.Destination = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCopy(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.NoReferrers, "no-referrers", false, "copy the package alone, without its signatures and other referrers")
	cmd.Flags().BoolVar(&opts.WithDependencies, "with-dependencies", false, "copy the packages it depends on too, to the same repository paths and tags on DST's registry (not rewritten: pulls from that registry find them there first)")
	addMaxSizeFlag(cmd, &opts.MaxSize, "package")
	opts.Remote.addFlags(cmd)
	opts.Remote.addTransferFlags(cmd)
	opts.Remote.addUploadFlags(cmd)
	opts.Verify.addFlags(cmd)
	return cmd
}

func runCopy(ctx context.Context, opts *copyOptions) error {
	opener, maxSize, err := opts.Remote.setup(opts.Global, &opts.MaxSize)
	if err != nil {
		return err
	}
	srcRef, err := reference.Parse(opener.BareTag(opts.Source))
	if err != nil {
		return errdefs.Invalid(err)
	}
	dstRef, err := reference.Parse(opener.BareTag(opts.Destination))
	if err != nil {
		return errdefs.Invalid(err)
	}
	if srcRef.Tag == "" && srcRef.Digest == "" {
		if err := target.DefaultSelector(&srcRef); err != nil {
			return err
		}
	}
	if dstRef.Tag == "" && dstRef.Digest == "" {
		dstRef.Tag = srcRef.Tag
	}
	src, err := opener.Open(ctx, srcRef, store.ReadOnly)
	if err != nil {
		return err
	}
	defer src.Close()
	// The trust policy applies to every package copied, before anything is
	// written: the package alone, or with what it depends on.
	var graph *resolve.Graph
	if opts.WithDependencies {
		graph, err = resolve.Resolve(ctx, []string{srcRef.String()}, ".", resolve.Options{Opener: opener, MaxSize: maxSize})
		if err != nil {
			return err
		}
		defer graph.Close()
		if _, err := trust.Enforce(ctx, install.TrustPackages(graph), opts.Verify.options(opts.IO, opts.Global, nil, nil, maxSize)); err != nil {
			return err
		}
	} else if err := opts.Verify.checkTarget(ctx, opts.IO, opts.Global, src, maxSize); err != nil {
		return err
	}

	dst, err := opener.Open(ctx, dstRef, store.ReadWrite)
	if err != nil {
		return err
	}
	defer dst.Close()
	if opts.WithDependencies && dst.Kind != target.KindRemote {
		return target.DiscardAfter(dst, errdefs.Invalid(fmt.Errorf("--with-dependencies copies to a registry, not to %s", dst.Name())))
	}

	copyOpts := transfer.Options{MaxSize: maxSize, Referrers: !opts.NoReferrers, AnyArtifact: !opts.WithDependencies}
	res, err := copyPackage(ctx, opts.IO, opts.Global, &opts.Remote, src, dst, copyOpts)
	if err != nil {
		return target.DiscardAfter(dst, err)
	}
	copyOpts.AnyArtifact = false
	if graph != nil {
		if err := copyDependencies(ctx, opts, opener, graph, dstRef.Registry, copyOpts); err != nil {
			return err
		}
	}
	return printTransfer(opts.IO, opts.Global, "Copied to", workflow.NewTransfer(dst.Ref, res))
}

// copyDependencies copies what the package of graph depends on to
// registry, saying on stderr what went where.
func copyDependencies(ctx context.Context, opts *copyOptions, opener *target.Opener, graph *resolve.Graph, registry string, copyOpts transfer.Options) error {
	copied, err := resolve.CopyDependencies(ctx, graph, opener, registry, copyOpts)
	for _, c := range copied {
		fmt.Fprintf(opts.IO.ErrOut, "Copied dependency %s to %s\n", c.From.Familiar(), c.To.Familiar())
	}
	return err
}
