package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/workflow"
)

// passwordEnv holds the password of a private key for commands run
// without a terminal, such as CI jobs reading it from a secret.
const passwordEnv = "STAX_PASSWORD"

type keyGenerateOptions struct {
	IO        *IOStreams
	Global    *globalOptions
	Prefix    string
	Algorithm string
	Force     bool
}

func newKeyCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Make signing keys",
	}
	cmd.AddCommand(newKeyGenerateCmd(f, nil))
	return cmd
}

func newKeyGenerateCmd(f *factory, runF func(context.Context, *keyGenerateOptions) error) *cobra.Command {
	opts := &keyGenerateOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write a key pair for stax sign and stax verify",
		Long: `Write a key pair: PREFIX.key, the private key encrypted with a password
(mode 0600), and PREFIX.pub, the public key to give to whoever verifies.
The password comes from $STAX_PASSWORD, else it is asked on the terminal.
The files are in the format cosign uses, so cosign key pairs work with
stax and the other way round.`,
		Example: `  stax key generate
  STAX_PASSWORD=… stax key generate --algorithm ed25519 --output-prefix release`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runKeyGenerate(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&opts.Prefix, "output-prefix", "stax", "write PREFIX.key and PREFIX.pub")
	flags.StringVar(&opts.Algorithm, "algorithm", signature.AlgorithmECDSAP256, "key algorithm: ecdsa-p256 or ed25519")
	flags.BoolVar(&opts.Force, "force", false, "overwrite existing key files")
	return cmd
}

func runKeyGenerate(_ context.Context, opts *keyGenerateOptions) error {
	password, err := readPassword(opts.IO, opts.Global, true)
	if err != nil {
		return err
	}
	out, err := workflow.GenerateKey(workflow.GenerateKeyOptions{Prefix: opts.Prefix, Algorithm: opts.Algorithm, Password: password, Force: opts.Force})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, out)
	}
	fmt.Fprintf(opts.IO.ErrOut, "Wrote the private key %s and the public key %s\n", out.PrivateKey, out.PublicKey)
	fmt.Fprintln(opts.IO.Out, out.KeyID)
	return nil
}

// readPassword returns $STAX_PASSWORD, or asks on the terminal (twice
// when confirm is set, for a new key).
func readPassword(streams *IOStreams, global *globalOptions, confirm bool) ([]byte, error) {
	if pw, ok := global.lookup(passwordEnv); ok {
		return []byte(pw), nil
	}
	if streams.Prompter == nil {
		return nil, errdefs.Invalid(fmt.Errorf("a password is needed for the private key: set %s, or run on a terminal to be asked", passwordEnv))
	}
	pw, err := streams.Prompter.Password("Password for the private key: ")
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	if confirm {
		again, err := streams.Prompter.Password("Again: ")
		if err != nil {
			return nil, errdefs.Invalid(err)
		}
		if again != pw {
			return nil, errdefs.Invalid(errors.New("the passwords differ"))
		}
	}
	return []byte(pw), nil
}
