package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/validate"
)

type validateOptions struct {
	IO          *IOStreams
	Global      *globalOptions
	Dir         string
	Strict      bool
	SymlinkMode string
	// Against is a published package to compare the stateful files with.
	Against string
	Remote  remoteOptions
}

func newValidateCmd(streams *IOStreams, global *globalOptions) *cobra.Command {
	opts := &validateOptions{IO: streams, Global: global}
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check a skills directory against the stax and Agent Skills specifications",
		Long: `Validate the skills of a package root (a directory with stax.yaml) or of a
bare skills directory. Errors exit 1; warnings exit 0, or 1 with --strict.`,
		Example: `  stax validate examples/skills
  stax validate --strict --output json .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			return runValidate(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "treat warnings as errors")
	cmd.Flags().StringVar(&opts.Against, "against", "",
		"published package (local store, registry or oci:PATH[:TAG]) whose skills must not have changed MEMORY.md, EXAMPLES.md or CALIBRATION.md without a version bump")
	addSymlinkFlag(cmd, &opts.SymlinkMode)
	opts.Remote.addFlags(cmd)
	opts.Remote.addRemoteOnlyFlag(cmd)
	return cmd
}

func runValidate(ctx context.Context, opts *validateOptions) error {
	mode, err := parseSymlinkMode(opts.SymlinkMode)
	if err != nil {
		return err
	}
	p, err := project.Open(opts.Dir)
	if err != nil {
		return err
	}
	report, err := validate.Dir(validate.Options{Root: p.SkillsDir, PackageRoot: p.Root, Strict: opts.Strict, Symlinks: mode})
	if err != nil {
		return exitcode.Wrap(exitcode.FileSystem, err)
	}
	if opts.Against != "" {
		opener, err := opts.Remote.opener(opts.Global)
		if err != nil {
			return err
		}
		if err := checkAgainst(ctx, opener, opts.Against, opts.Remote.lookupScope(), report); err != nil {
			return err
		}
	}
	if opts.Global.json() {
		err = writeJSON(opts.IO.Out, report)
	} else {
		err = printReport(opts.IO.Out, report)
	}
	if err != nil {
		return err
	}
	if !report.Valid {
		return exitcode.Wrap(exitcode.Validation, errReported)
	}
	return nil
}

// printReport writes diagnostics in the file:line: form editors link to.
func printReport(w io.Writer, r *validate.Report) error {
	for _, d := range r.Errors {
		printDiagnostic(w, "error", d)
	}
	for _, d := range r.Warnings {
		printDiagnostic(w, "warning", d)
	}
	var err error
	if r.Valid {
		_, err = fmt.Fprintf(w, "%d skills valid, %d warnings\n", len(r.Skills), len(r.Warnings))
	} else {
		_, err = fmt.Fprintf(w, "invalid: %d errors, %d warnings\n", len(r.Errors), len(r.Warnings))
	}
	return err
}

func printDiagnostic(w io.Writer, severity string, d validate.Diagnostic) {
	fmt.Fprintln(w, d.Format(severity))
}

func addSymlinkFlag(cmd *cobra.Command, mode *string) {
	cmd.Flags().StringVar(mode, "symlink-mode", string(layers.SymlinkReject),
		"what to do with symlinks: reject, or flatten (package the files they point to inside the package root)")
}

func parseSymlinkMode(s string) (layers.SymlinkMode, error) {
	switch m := layers.SymlinkMode(s); m {
	case layers.SymlinkReject, layers.SymlinkFlatten:
		return m, nil
	}
	return "", exitcode.Wrap(exitcode.Validation, fmt.Errorf("--symlink-mode must be %q or %q, not %q", layers.SymlinkReject, layers.SymlinkFlatten, s))
}
