package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/bump"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// partFlags are --patch, --minor and --major: the part of a version that
// bump and apply raise.
type partFlags struct{ Patch, Minor, Major bool }

// addFlags registers the three flags; help is their usage with %s for the
// part, and byDefault, if any, is said to be the default.
func (p *partFlags) addFlags(cmd *cobra.Command, help string, byDefault bump.Part) {
	for _, f := range []struct {
		value *bool
		part  bump.Part
	}{{&p.Patch, bump.Patch}, {&p.Minor, bump.Minor}, {&p.Major, bump.Major}} {
		usage := fmt.Sprintf(help, f.part)
		if f.part == byDefault {
			usage += " (the default)"
		}
		cmd.Flags().BoolVar(f.value, string(f.part), false, usage)
	}
}

// part is the part the flags name, "" when none does.
func (p *partFlags) part() (bump.Part, error) {
	n := 0
	for _, set := range []bool{p.Patch, p.Minor, p.Major} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return "", errdefs.Invalid(errors.New("give one of --patch, --minor and --major"))
	case p.Minor:
		return bump.Minor, nil
	case p.Major:
		return bump.Major, nil
	case p.Patch:
		return bump.Patch, nil
	}
	return "", nil
}
