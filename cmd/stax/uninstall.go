package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/store"
)

type uninstallOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Where  installScope
}

type uninstallResult struct {
	Runtimes []string `json:"runtimes"`
	Dir      string   `json:"dir"`
	Removed  []string `json:"removed"`
}

func newUninstallCmd(streams *IOStreams, global *globalOptions) *cobra.Command {
	opts := &uninstallOptions{IO: streams, Global: global}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the skills stax installed, and only those",
		Long: `Remove from each runtime's skills folder the skills stax installed there,
as its install record lists them. Skills of yours in the same folder stay.`,
		Example: `  stax uninstall --runtime claude-code,cursor
  stax uninstall --scope user --runtime codex`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUninstall(cmd.Context(), opts)
		},
	}
	opts.Where.addFlags(cmd)
	return cmd
}

func runUninstall(ctx context.Context, opts *uninstallOptions) error {
	def, err := loadDefinition(opts.Where.Dir)
	if err != nil {
		return err
	}
	targets, _, err := opts.Where.resolveTargets(def)
	if err != nil {
		return err
	}
	lockDir, err := store.LockDir()
	if err != nil {
		return err
	}
	results := []uninstallResult{}
	for _, t := range targets {
		removed, err := install.Uninstall(ctx, t.Dir, lockDir)
		if err != nil {
			return err
		}
		results = append(results, uninstallResult{Runtimes: runtimeNames(t.Runtimes), Dir: t.Dir, Removed: removed})
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, results)
	}
	for _, r := range results {
		fmt.Fprintf(opts.IO.Out, "%s: %s: removed %d skills%s\n", strings.Join(r.Runtimes, ","), r.Dir, len(r.Removed), listSuffix(r.Removed))
	}
	return nil
}

func listSuffix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}
