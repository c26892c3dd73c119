package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/validate"
	"github.com/stax-dev/stax/pkg/workflow"
)

type validateOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	Dir    string
	// Build holds --strict, --symlink-mode and --max-size.
	Build buildFlags
	// Against is a published package to compare the stateful files with.
	Against string
	Remote  remoteOptions
}

func newValidateCmd(f *factory, runF func(context.Context, *validateOptions) error) *cobra.Command {
	opts := &validateOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check skills against the stax and Agent Skills specifications",
		Long: `Validate the skills of a package root (a directory with stax.yaml), of a
bare skills directory, or one skill (a directory with SKILL.md, or that
SKILL.md), whose folder's name is its name. Errors exit 1; warnings exit 0, or 1 with
--strict.`,
		Example: `  stax validate examples/skills
  stax validate examples/skills/review-pr
  stax validate --strict --output json .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runValidate(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Build.Strict, "strict", false, "treat warnings as errors")
	cmd.Flags().StringVar(&opts.Against, "against", "",
		"published package (local store, registry or oci:PATH[:TAG]) whose skills must not have changed MEMORY.md, EXAMPLES.md or CALIBRATION.md without a version bump")
	opts.Build.addSymlinks(cmd, "")
	opts.Build.addMaxSize(cmd, "uncompressed skills layer of the --against package")
	opts.Remote.addFlags(cmd)
	opts.Remote.addRemoteOnlyFlag(cmd)
	return cmd
}

func runValidate(ctx context.Context, opts *validateOptions) error {
	// Only a comparison with a release reads packages: without one, no
	// store or registry settings are needed.
	env, finish := &workflow.Env{}, func() {}
	if opts.Against != "" {
		var err error
		if env, finish, err = opts.Env(&opts.Remote); err != nil {
			return err
		}
	}
	report, err := workflow.Validate(ctx, env, workflow.ValidateOptions{
		Dir: opts.Dir, Strict: opts.Build.Strict, Symlinks: layers.SymlinkMode(opts.Build.Symlinks),
		Against: opts.Against, Limits: layers.Limits{MaxSize: opts.Build.MaxSize.Limit()}, Scope: opts.Remote.lookupScope(),
	})
	finish()
	if err != nil {
		return err
	}
	if opts.Global.json() {
		err = writeJSON(opts.IO.Out, report)
	} else {
		err = printReport(opts.IO.Out, report)
	}
	if err != nil || report.Valid {
		return err
	}
	return errdefs.Invalid(errReported)
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
		_, err = fmt.Fprintf(w, "%s valid, %s\n", plural(int64(len(r.Skills)), "skill"), plural(int64(len(r.Warnings)), "warning"))
	} else {
		_, err = fmt.Fprintf(w, "invalid: %s, %s\n", plural(int64(len(r.Errors)), "error"), plural(int64(len(r.Warnings)), "warning"))
	}
	return err
}

func printDiagnostic(w io.Writer, severity string, d validate.Diagnostic) {
	fmt.Fprintln(w, d.Format(severity))
}
