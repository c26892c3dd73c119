package main

import (
	"github.com/spf13/cobra"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// usageError marks a mistake in how stax was called, so its code is
// "usage" whichever command found it.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// flagError marks a mistake in how stax was called (a flag, the number of
// arguments): invalid usage, exit 1, whichever command found it.
func flagError(err error) error {
	if err == nil {
		return nil
	}
	return errdefs.Invalid(usageError{err})
}

// flagErrorArgs makes the argument validators of cmd and its
// subcommands return flag errors.
func flagErrorArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error { return flagError(check(c, args)) }
	}
	for _, sub := range cmd.Commands() {
		flagErrorArgs(sub)
	}
}
