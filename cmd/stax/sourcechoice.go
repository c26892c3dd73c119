package main

import "github.com/spf13/cobra"

// sourceChoice is what install and add take of a git source: --plugin,
// --skill, and --strict for the content rules its skills break.
type sourceChoice struct {
	Plugin string
	Skills []string
	Strict bool
}

func (c *sourceChoice) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.Plugin, "plugin", "", "take this plugin (NAME or NAME@MARKETPLACE) of a git SOURCE's marketplace; stax.yaml keeps it")
	cmd.Flags().StringArrayVar(&c.Skills, "skill", nil, "take only this skill of a SOURCE, git or OCI (repeatable); stax.yaml keeps the choice")
	cmd.Flags().BoolVar(&c.Strict, "strict", false, "refuse a git source's skill that breaks a content rule (a description over 1,024 characters, a name unlike its folder), rather than warn")
}
