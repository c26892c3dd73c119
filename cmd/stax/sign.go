package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/workflow"
)

type signOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Env     newEnv
	Remote  remoteOptions
	Ref     string
	Key     string
	Local   bool
	MaxSize byteSize
}

func newSignCmd(f *factory, runF func(context.Context, *signOptions) error) *cobra.Command {
	opts := &signOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "sign REF --key KEY",
		Short: "Sign a package, attaching the signature to it",
		Long: `Sign the package REF with the private key KEY and attach the signature to
it as a referrer: a Sigstore bundle whose signed statement names the package
manifest digest and the digest of every file of every skill. REF is a
registry reference (with or without the referrers API), an OCI layout
(oci:PATH[:TAG|@DIGEST]), or with --local, or as a name without a registry
host, a reference in the local store.

KEY is a key made by stax key generate or cosign generate-key-pair; its
password comes from $STAX_PASSWORD, else it is asked on the terminal.`,
		Example: `  stax sign ghcr.io/acme/skills:1.0.0 --key stax.key
  STAX_PASSWORD="$SIGNING_PASSWORD" stax sign oci:./out:1.0.0 --key cosign.key`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSign(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&opts.Key, "key", "", "private key file (stax or cosign format)")
	flags.BoolVar(&opts.Local, "local", false, "sign the package in the local store")
	_ = cmd.MarkFlagRequired("key")
	addMaxSizeFlag(cmd, &opts.MaxSize, "package")
	opts.Remote.addFlags(cmd)
	return cmd
}

func runSign(ctx context.Context, opts *signOptions) error {
	signer, err := loadSigner(opts.IO, opts.Global, opts.Key)
	if err != nil {
		return err
	}
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Sign(ctx, env, workflow.SignOptions{Ref: opts.Ref, Local: opts.Local, Signer: signer, Limits: layers.Limits{MaxSize: opts.MaxSize.Limit()}})
	finish()
	if err != nil {
		return err
	}
	return printSigned(opts.IO, opts.Global, res)
}

// loadSigner reads a private key file, and its password if it is
// encrypted.
func loadSigner(streams *IOStreams, global *globalOptions, path string) (*signature.KeySigner, error) {
	data, err := regularfile.ReadFile(path, signature.MaxKeyFileSize)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("read private key: %w", err))
	}
	var asked error
	signer, err := signature.LoadPrivateKey(data, func() ([]byte, error) {
		password, err := readPassword(streams, global, false)
		asked = err
		return password, err
	})
	if asked != nil {
		return nil, asked
	}
	if errors.Is(err, signature.ErrWrongPassword) {
		return nil, errdefs.Invalid(fmt.Errorf("%s: %w: check %s", path, err, passwordEnv))
	}
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s: %w", path, err))
	}
	return signer, nil
}
