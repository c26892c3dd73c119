package main

import (
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/workflow"
)

// verifyFlags are the signature checks of the commands that bring packages
// in (pull, install, copy): the trust policy, overridden by the flags.
type verifyFlags struct {
	Mode string
	Keys []string
}

func (v *verifyFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&v.Mode, "verify", "", "signature check: none, warn or require (default: the trust policy's, else none)")
	f.StringArrayVar(&v.Keys, "key", nil, "trusted public key file, replacing the trust policy's (repeatable)")
}

// verification is the signature check the flags ask for.
func (v *verifyFlags) verification() workflow.Verification {
	return workflow.Verification{Mode: v.Mode, Keys: v.Keys}
}
