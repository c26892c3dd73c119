package main

import (
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/trustpolicy"
	"github.com/stax-dev/stax/pkg/workflow"
)

// verifyFlags are the signature checks of the commands that bring packages
// in (pull, install, copy): the trust policy, overridden by the flags. A
// signer or trusted root given without --verify requires (see
// trust.Options).
type verifyFlags struct {
	Mode     string
	Keys     []string
	Identity identityFlags
}

func (v *verifyFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&v.Mode, "verify", "", "signature check: none, warn or require (default: require when --key, a --certificate flag or --trusted-root is given, else the trust policy's, else none)")
	f.StringArrayVar(&v.Keys, "key", nil, "trusted public key file, replacing the trust policy's (repeatable); without --verify, a signature is required")
	v.Identity.addFlags(cmd)
}

// verification is the signature check the flags ask for.
func (v *verifyFlags) verification() workflow.Verification {
	return workflow.Verification{Mode: v.Mode, Keys: v.Keys, Identities: v.Identity.identities(), TrustedRoot: v.Identity.TrustedRoot}
}

// identityFlags name a keyless signer, and the trusted root to check it
// against, with cosign's flags.
type identityFlags struct {
	Subject, SubjectRegExp, Issuer, IssuerRegExp string
	TrustedRoot                                  string
}

func (i *identityFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&i.Subject, "certificate-identity", "", "trusted identity of a keyless signature's certificate (an email, or a workflow URI), replacing the trust policy's signers")
	f.StringVar(&i.SubjectRegExp, "certificate-identity-regexp", "", "regular expression of the trusted certificate identity; it matches anywhere in the identity unless anchored (^...$), as in cosign, and stax warns when it is not")
	f.StringVar(&i.Issuer, "certificate-oidc-issuer", "", "trusted OIDC issuer of the certificate, e.g. https://token.actions.githubusercontent.com")
	f.StringVar(&i.IssuerRegExp, "certificate-oidc-issuer-regexp", "", "regular expression of the trusted OIDC issuer; it matches anywhere in the issuer unless anchored (^...$), and stax warns when it is not")
	f.StringVar(&i.TrustedRoot, "trusted-root", "", "Sigstore trusted_root.json that keyless signatures are checked against, offline (default: the trust policy's)")
}

// identities is the signer the flags name; none when no flag names one.
func (i *identityFlags) identities() []trustpolicy.Identity {
	id := trustpolicy.Identity{Issuer: i.Issuer, IssuerRegExp: i.IssuerRegExp, Subject: i.Subject, SubjectRegExp: i.SubjectRegExp}
	if id == (trustpolicy.Identity{}) {
		return nil
	}
	return []trustpolicy.Identity{id}
}
