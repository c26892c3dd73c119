package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/workflow"
)

type copyOptions struct {
	IO          *IOStreams
	Global      *globalOptions
	Env         newEnv
	Remote      remoteOptions
	Source      string
	Destination string
	NoReferrers bool
	// WithDependencies copies the packages the package depends on too.
	WithDependencies bool
	// NoOverwrite refuses a tag of DST that names another manifest.
	NoOverwrite bool
	MaxSize     byteSize
	Verify      verifyFlags
	// Sign signs the copy with the private key SignKey.
	Sign    bool
	SignKey string
}

func newCopyCmd(f *factory, runF func(context.Context, *copyOptions) error) *cobra.Command {
	opts := &copyOptions{IO: f.IO, Global: f.Global, Env: f.Env}
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
tag. A tag of DST that names another manifest is moved, and the copy says
so; --no-overwrite refuses it instead, before anything is copied (exit 3),
and of copies racing for one new tag, one wins and the others exit 3.
--sign signs the copy at DST with the private key --sign-key, beside the
signatures copied.

SRC may be a git reference (git+https://HOST/PATH//SUBDIR#REF,
github.com/OWNER/REPO/SUBDIR#REF; see docs/sources.md): the package is
built from that commit's tree as install builds it, annotated with the
repository and the commit, and copied to DST, to mirror someone else's
skills into your own registry.`,
		Example: `  stax copy ghcr.io/acme/skills:1.0.0 registry.internal/acme/skills:1.0.0
  stax copy ghcr.io/acme/skills:1.0.0 oci:./mirror
  stax copy oci:./mirror:1.0.0 localhost:5000/acme/skills
  stax copy oci:./bin/image ghcr.io/acme/stax:1.0.0
  stax copy github.com/anthropics/skills#v1.1.0 registry.internal/mirror/skills --sign --sign-key cosign.key`,
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
	cmd.Flags().BoolVar(&opts.NoOverwrite, "no-overwrite", false, "refuse, before anything is copied, a tag of DST that names another manifest already")
	cmd.Flags().BoolVar(&opts.Sign, "sign", false, "sign the copy at DST with --sign-key (see stax sign)")
	cmd.Flags().StringVar(&opts.SignKey, "sign-key", "", "with --sign: private key file (--key is the public key the copy is verified with)")
	addMaxSizeFlag(cmd, &opts.MaxSize, "package")
	opts.Remote.addFlags(cmd)
	opts.Remote.addTransferFlags(cmd)
	opts.Remote.addUploadFlags(cmd)
	opts.Verify.addFlags(cmd)
	return cmd
}

func runCopy(ctx context.Context, opts *copyOptions) error {
	signer, err := flagSigner(opts.IO, opts.Global, opts.Sign, opts.SignKey, "--sign-key")
	if err != nil {
		return err
	}
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Copy(ctx, env, workflow.CopyOptions{
		Source: opts.Source, Destination: opts.Destination, NoReferrers: opts.NoReferrers,
		WithDependencies: opts.WithDependencies, NoOverwrite: opts.NoOverwrite, Limits: layers.Limits{MaxSize: opts.MaxSize.Limit()}, Verify: opts.Verify.verification(),
		Signer: signer,
	})
	finish()
	if err != nil {
		return err
	}
	return printTransfer(opts.IO, opts.Global, "Copied to", *res)
}
