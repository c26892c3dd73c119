package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/hiddentext"
)

// addAllowHiddenTextFlag adds --allow-hidden-text to a command that
// refuses skills holding characters reviewers cannot see.
func addAllowHiddenTextFlag(cmd *cobra.Command, allow *bool, verb string) {
	cmd.Flags().BoolVar(allow, "allow-hidden-text", false,
		verb+" skills whose files hold characters reviewers cannot see (bidirectional controls, tag and zero-width characters)")
}

// withAllowHiddenTextHint adds to a refusal for hidden text the way to
// accept it, which only the command knows.
func withAllowHiddenTextHint(err error) error {
	var hidden *hiddentext.Error
	if errors.As(err, &hidden) {
		return fmt.Errorf("%w; if it is meant to be there, pass --allow-hidden-text", err)
	}
	return err
}
