package main

import (
	"context"
	"fmt"
	"github.com/stax-dev/stax/pkg/workflow"
	"os"

	"github.com/spf13/cobra"
)

type pullOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	Remote remoteOptions
	Refs   []string
	Output string
	Verify verifyFlags
	// Limits are --max-size and --max-files.
	Limits limitFlags
	// Strict is --strict: skills whose names differ only in letter case
	// are an error, not a warning.
	Strict bool
	// AllowHiddenText is --allow-hidden-text.
	AllowHiddenText bool
}

func newPullCmd(f *factory, runF func(context.Context, *pullOptions) error) *cobra.Command {
	opts := &pullOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "pull REF...",
		Short: "Fetch packages into the local store, and optionally merge their skills into a directory",
		Long: `Fetch each package REF (a registry reference, oci:PATH[:TAG|@DIGEST], a
package directory, or a git repository: see docs/sources.md) and the packages it depends on, verifying every digest
and size. Packages from a registry are stored in the local store; those of
an oci: layout or a directory are already on disk and are read where they
are, their layers when -o extracts them. Manifests and configs are checked
before any layer is fetched: each must be a stax package (one labelled as an
agent by another stax writer is read too, with a notice).

With -o DIR the skills are merged and extracted into DIR. Packages are
layered in the order given, later ones winning, with every package's
dependencies below all the packages named; a winning skill replaces the
whole directory of the skill it overrides, and each override is reported.
Only winning skills are extracted, each layer as it streams into the store,
in one pass, through the safe layer reader into a staging directory that is
renamed into place only when everything checked out: DIR must not exist or
be empty, and nothing is written on failure. A staging directory that a
killed pull left beside DIR is removed by the next pull into that folder.

Skills whose names differ only in letter case (A and a) overwrite each other
on macOS and Windows: a warning, and with --strict an error (exit 5) before
any layer is fetched.`,
		Example: `  stax pull ghcr.io/acme/skills:1.0.0
  stax pull ghcr.io/acme/skills@sha256:… -o .claude/skills
  stax pull ghcr.io/org/skills:2.0.0 ghcr.io/team/skills:1.4.0 -o ./skills`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Refs = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPull(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output-dir", "o", "", "merge the skills into this directory")
	opts.Limits.add(cmd, "package")
	addStrictFlag(cmd, &opts.Strict, "")
	addAllowHiddenTextFlag(cmd, &opts.AllowHiddenText, "extract with -o")
	opts.Remote.addFlags(cmd)
	opts.Remote.addTransferFlags(cmd)
	opts.Verify.addFlags(cmd)
	return cmd
}

func runPull(ctx context.Context, opts *pullOptions) error {
	if err := checkOutputDir(opts.Output); err != nil {
		return err
	}
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Pull(ctx, env, workflow.PullOptions{
		Refs: opts.Refs, OutputDir: opts.Output, Limits: opts.Limits.limits(),
		Strict: opts.Strict, AllowHiddenText: opts.AllowHiddenText, Verify: opts.Verify.verification(),
	})
	finish()
	if err != nil {
		return withAllowHiddenTextHint(err)
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	printGraphNotes(opts.IO, res.Packages, res.Overrides)
	for _, p := range res.Packages {
		if p.Direct {
			fmt.Fprintln(opts.IO.Out, pinnedReference(p.Reference, p.Digest))
		}
	}
	if res.Output != "" {
		fmt.Fprintf(opts.IO.ErrOut, "Pulled %s; %s in %s\n", plural(int64(len(res.Packages)), "package"), plural(int64(len(res.Skills)), "skill"), res.Output)
	}
	return nil
}

// checkOutputDir refuses an -o that names an output format where no such
// directory exists: -o is --output-dir here, but kubectl, helm and oras
// users type -o json to ask for JSON, and would get a folder named json.
func checkOutputDir(dir string) error {
	format := dir
	switch dir {
	case outputJSON, outputText:
	case "yaml": // stax has no YAML output; JSON is the closest
		format = outputJSON
	default:
		return nil
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil
	}
	return flagError(fmt.Errorf("-o is the output directory (--output-dir), and there is no directory %s: for %s output pass --output %s (or -o ./%s to create a directory named %s)", dir, format, format, dir, dir))
}
