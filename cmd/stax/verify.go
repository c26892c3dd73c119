package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/trustpolicy"
	"github.com/stax-dev/stax/pkg/workflow"
)

type verifyOptions struct {
	IO        *IOStreams
	Global    *globalOptions
	Env       newEnv
	Where     installScope
	Installed bool
	// Ref, Keys, Policy, Local, Remote and MaxSize verify a package's
	// signature.
	Ref      string
	Keys     []string
	Identity identityFlags
	Policy   string
	Local    bool
	Remote   remoteOptions
	MaxSize  byteSize
}

func newVerifyCmd(f *factory, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "verify (REF [--key PUB... | --certificate-identity ID --certificate-oidc-issuer URL --trusted-root FILE] | --installed)",
		Short: "Verify a package's signature, or the installed skills",
		Long: `With REF: find the signatures attached to the package REF (a registry
reference, an OCI layout oci:PATH[:TAG|@DIGEST], or with --local, or as a
name without a registry host, a reference in the local store), and check that one was made with a trusted key, that it
signs this package's manifest, and that every file of every skill is the one
signed. Trusted keys are the --key files, or those the trust policy
(--policy FILE) gives REF. Sigstore bundles attached by cosign verify too.

Keyless signatures (cosign sign with an OIDC identity, as in GitHub
Actions) verify offline against a Sigstore trusted root (--trusted-root
trusted_root.json) as cosign verify checks them: the Fulcio certificate
chain, its SCT, the transparency log entry and the time of signing it
proves, and the certificate's identity and OIDC issuer
(--certificate-identity[-regexp], --certificate-oidc-issuer[-regexp]).

Exits 0 naming the signer, or 6 with the reason: no signature, wrong key,
wrong issuer, wrong identity, untrusted certificate, no timestamp, no log
entry, bad signature, subject mismatch or content mismatch.

With --installed: compare every skill stax installed in each runtime's
folder with the files it wrote, reporting any file changed, added or removed
since, and check that each installed skill is the one stax.lock pins. With
--key or the certificate flags (or the signers the trust policy gives a
package), compare the installed files with what the package's signature
signs as well, so that a file changed together with the install record is
found. Exits 6 when anything
differs, or when a folder leads out of the project through a symbolic link,
which install refuses.`,
		Example: `  stax verify ghcr.io/acme/skills:1.0.0 --key acme.pub
  stax verify oci:./mirror:1.0.0 --key old.pub --key new.pub
  stax verify ghcr.io/acme/skills:1.0.0 --trusted-root trusted_root.json --certificate-identity-regexp '^https://github\.com/acme/.+$' --certificate-oidc-issuer https://token.actions.githubusercontent.com
  stax verify --installed
  stax verify --installed --runtime cursor --output json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Ref = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Ref != "" {
				for _, f := range []string{"runtime", "dir", "scope"} {
					if cmd.Flags().Changed(f) {
						return errdefs.Invalid(fmt.Errorf("--%s says which installed skills to verify, with --installed; verifying the package %s it would do nothing", f, termtext.Escape(opts.Ref)))
					}
				}
				return runVerifyPackage(cmd.Context(), opts)
			}
			return runVerify(cmd.Context(), opts)
		},
	}
	opts.Where.addFlags(cmd, "runtimes whose installed skills to verify (with --installed)")
	flags := cmd.Flags()
	flags.BoolVar(&opts.Installed, "installed", false, "verify the installed skills")
	flags.StringArrayVar(&opts.Keys, "key", nil, "trusted public key file (repeatable)")
	opts.Identity.addFlags(cmd)
	flags.StringVar(&opts.Policy, "policy", "", "trust policy file giving the keys (default $STAX_HOME/"+trustpolicy.FileName+" when no --key)")
	flags.BoolVar(&opts.Local, "local", false, "verify the package in the local store")
	addMaxSizeFlag(cmd, &opts.MaxSize, "package")
	opts.Remote.addFlags(cmd)
	// A flag the other form of verify would ignore is refused: given,
	// it would be believed to have been checked.
	for _, signer := range []string{"key", "certificate-identity", "certificate-identity-regexp"} {
		cmd.MarkFlagsMutuallyExclusive("policy", signer)
	}
	cmd.MarkFlagsMutuallyExclusive("installed", "local")
	return cmd
}

func runVerify(ctx context.Context, opts *verifyOptions) error {
	if !opts.Installed {
		return errdefs.Invalid(fmt.Errorf("say what to verify: a package REF with --key, or --installed for the installed skills"))
	}
	env, _, err := opts.Env(&opts.Remote) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	res, err := workflow.VerifyInstalled(ctx, env, workflow.VerifyInstalledOptions{
		Where: opts.Where.where(), Keys: opts.Keys, Policy: opts.Policy, Limits: layers.Limits{MaxSize: opts.MaxSize.Limit()},
		Identities: opts.Identity.identities(), TrustedRoot: opts.Identity.TrustedRoot,
	})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		if err := writeJSON(opts.IO.Out, res); err != nil {
			return err
		}
	} else {
		printVerify(opts.IO, *res)
		if hint := installHint(*res, opts.Where); hint != "" {
			printNote(opts.IO.ErrOut, "note", hint)
		}
	}
	if !res.Verified {
		return errdefs.MarkDataLoss(errReported)
	}
	return nil
}
