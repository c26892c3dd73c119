package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

type signOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Remote  remoteOptions
	Ref     string
	Key     string
	Local   bool
	MaxSize byteSize
}

type signResult struct {
	Reference string `json:"reference"`
	Digest    string `json:"digest"`
	Signature string `json:"signature"`
	Signer    string `json:"signer"`
	SignedAt  string `json:"signedAt"`
	Algorithm string `json:"algorithm"`
}

func newSignCmd(f *factory, runF func(context.Context, *signOptions) error) *cobra.Command {
	opts := &signOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "sign REF --key KEY",
		Short: "Sign a package, attaching the signature to it",
		Long: `Sign the package REF with the private key KEY and attach the signature to
it as a referrer: a Sigstore bundle whose signed statement names the package
manifest digest and the digest of every file of every skill. REF is a
registry reference (with or without the referrers API), an OCI layout
(oci:PATH[:TAG|@DIGEST]), or with --local a reference in the local store.

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
	signer, err := loadSigner(opts.IO, opts.Key)
	if err != nil {
		return err
	}
	opener, maxSize, err := opts.Remote.setup(opts.Global, &opts.MaxSize)
	if err != nil {
		return err
	}
	src, err := openSigned(ctx, opener, opts.Ref, opts.Local, store.ReadWrite)
	if err != nil {
		return err
	}
	defer src.Close()
	signed, err := signature.Sign(ctx, src.Target, src.Descriptor, signer, signature.SignOptions{Name: src.Ref.Familiar(), MaxSize: maxSize})
	if err != nil {
		return explainSignature(src.Target, err)
	}
	return printSigned(opts.IO, opts.Global, src.Ref, src.Descriptor.Digest.String(), signed)
}

func printSigned(streams *IOStreams, global *globalOptions, ref reference.Reference, dgst string, signed *signature.Signed) error {
	out := signResult{
		Reference: ref.Familiar(), Digest: dgst, Signature: signed.Descriptor.Digest.String(),
		Signer: signed.Config.Signer, SignedAt: signed.Config.SignedAt, Algorithm: signed.Config.Algorithm,
	}
	if global.json() {
		return writeJSON(streams.Out, out)
	}
	fmt.Fprintf(streams.ErrOut, "Signed %s@%s with key %s\n", out.Reference, out.Digest, out.Signer)
	fmt.Fprintln(streams.Out, out.Signature)
	return nil
}

// loadSigner reads a private key file and its password.
func loadSigner(streams *IOStreams, path string) (*signature.KeySigner, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errdefs.IO(fmt.Errorf("read private key: %w", err))
	}
	password, err := readPassword(streams, false)
	if err != nil {
		return nil, err
	}
	signer, err := signature.LoadPrivateKey(data, password)
	if errors.Is(err, signature.ErrWrongPassword) {
		return nil, errdefs.Invalid(fmt.Errorf("%s: %w: check %s", path, err, passwordEnv))
	}
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s: %w", path, err))
	}
	return signer, nil
}

// openSigned opens the package that sign and verify work on: an OCI
// layout, a registry repository, or with local the local store, opened in
// mode. Unlike other read commands they never fall back from one place to
// another: a signature is attached to, and looked for in, one place.
func openSigned(ctx context.Context, opener *target.Opener, arg string, local bool, mode store.Mode) (*source.Source, error) {
	ref, err := reference.Parse(arg)
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	if ref.Tag == "" && ref.Digest == "" {
		ref.Tag = "latest"
	}
	if local && !ref.IsLayout() {
		return source.Lookup(ctx, func() (*target.Target, error) { return opener.OpenLocal(ctx, ref, mode) }, arg)
	}
	return source.Lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, ref) }, arg)
}

// explainSignature gives the errors of signing and verifying their exit
// codes: a package that does not verify is a verification failure.
func explainSignature(t *target.Target, err error) error {
	switch {
	case errors.Is(err, signature.ErrNotVerified):
		return errdefs.Corrupt(err)
	case errors.Is(err, artifact.ErrInvalidPackage):
		return errdefs.Invalid(fmt.Errorf("%s: %w", t.Name(), err))
	}
	return t.Explain(err)
}

// signedAtText formats a signing time for messages.
func signedAtText(t time.Time) string {
	if t.IsZero() {
		return "an unstated time"
	}
	return t.UTC().Format(time.RFC3339)
}
