package main

import (
	"github.com/spf13/cobra"
	"github.com/stax-dev/stax/pkg/workflow"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/store"
)

// registerCompletions gives shell completion the values flags and
// arguments take: runtimes for --runtime, skill names for render, bump
// and show, and the local store's tags for inspect and push.
func registerCompletions(root *cobra.Command, global *globalOptions) {
	for _, cmd := range root.Commands() {
		if cmd.Flags().Lookup("runtime") != nil {
			cmd.RegisterFlagCompletionFunc("runtime", completeRuntimes)
		}
		switch cmd.Name() {
		case "render", "bump":
			cmd.ValidArgsFunction = firstArg(completePackageSkills)
		case "show":
			cmd.ValidArgsFunction = firstArg(completeRuntimeSkills)
		case "inspect", "push":
			cmd.ValidArgsFunction = firstArg(func(cmd *cobra.Command) ([]string, cobra.ShellCompDirective) {
				return completeStoreTags(cmd, global)
			})
		}
	}
}

// firstArg completes the first argument only.
func firstArg(complete func(*cobra.Command) ([]string, cobra.ShellCompDirective)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return complete(cmd)
	}
}

func completeRuntimes(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return agent.NamesAndAliases(), cobra.ShellCompDirectiveNoFileComp
}

// completePackageSkills lists the skills of --dir, else of the package in
// the current directory; directories still complete, as SKILL may be one.
func completePackageSkills(cmd *cobra.Command) ([]string, cobra.ShellCompDirective) {
	dir, _ := cmd.Flags().GetString("dir")
	dir, err := workflow.SkillsDir(dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return workflow.SkillNames(dir), cobra.ShellCompDirectiveDefault
}

// completeRuntimeSkills lists the skills the runtime of --runtime sees.
func completeRuntimeSkills(cmd *cobra.Command) ([]string, cobra.ShellCompDirective) {
	var d discoveryOptions
	d.Runtime, _ = cmd.Flags().GetString("runtime")
	d.Project, _ = cmd.Flags().GetString("dir")
	l, err := d.list()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, s := range l.Visible() {
		names = append(names, s.Key)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeStoreTags lists the local store's tags; directories still
// complete, as the argument may be one.
func completeStoreTags(cmd *cobra.Command, global *globalOptions) ([]string, cobra.ShellCompDirective) {
	dir, err := global.storeDir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	tags, _ := store.Tags(cmd.Context(), dir)
	return tags, cobra.ShellCompDirectiveDefault
}
