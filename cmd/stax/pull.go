package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/trust"
)

type pullOptions struct {
	IO       *IOStreams
	Global   *globalOptions
	Remote   remoteOptions
	Refs     []string
	Output   string
	MaxSize  byteSize
	Verify   verifyFlags
	MaxFiles maxFilesFlag
	// Strict is --strict: skills whose names differ only in letter case
	// are an error, not a warning.
	Strict bool
	// AllowHiddenText is --allow-hidden-text.
	AllowHiddenText bool
}

type pullResult struct {
	Packages  []resolvedPackage `json:"packages"`
	Skills    []mergedSkill     `json:"skills"`
	Overrides []string          `json:"overrides"`
	Output    string            `json:"output,omitempty"`
}

func newPullCmd(f *factory, runF func(context.Context, *pullOptions) error) *cobra.Command {
	opts := &pullOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "pull REF...",
		Short: "Fetch packages into the local store, and optionally merge their skills into a directory",
		Long: `Fetch each package REF (a registry reference, oci:PATH[:TAG|@DIGEST], or a
package directory) and the packages it depends on, verifying every digest
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
	addMaxSizeFlag(cmd, &opts.MaxSize, "package")
	addMaxFilesFlag(cmd, &opts.MaxFiles)
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
	opener, maxSize, err := opts.Remote.setup(opts.Global, &opts.MaxSize)
	if err != nil {
		return err
	}
	files := opts.MaxFiles.Limit()
	refs, err := packageArguments(opts.IO, opts.Refs, ".")
	if err != nil {
		return err
	}
	for i, ref := range refs {
		refs[i] = opener.BareTag(ref)
	}
	graph, err := resolve.Resolve(ctx, refs, ".", resolve.Options{Opener: opener, MaxSize: maxSize, MaxFiles: files})
	if err != nil {
		return err
	}
	defer graph.Close()
	if _, err := trust.Enforce(ctx, install.TrustPackages(graph), opts.Verify.options(opts.IO, opts.Global, nil, nil, maxSize)); err != nil {
		return err
	}

	// The merge needs only the configs: a set --strict refuses is refused
	// before any layer is fetched.
	merged := merge.Merge(graph.Order)
	merged.MaxFiles = files
	if opts.Strict {
		if err := merged.CaseError(); err != nil {
			return fmt.Errorf("%w: rename one of each pair, or pull without --strict", err)
		}
	}
	for _, w := range merged.CaseWarnings() {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}

	copyOpts, done := opts.Remote.transferOptions(opts.IO, opts.Global)
	copyOpts.MaxSize = maxSize
	store := func() error { _, err := graph.Store(ctx, opener, copyOpts); return err }
	if opts.Output == "" {
		err = store()
	} else {
		// Winning layers are extracted as they stream into the store.
		layers := resolve.StoreLayers{Graph: graph, Opener: opener, Progress: copyOpts.Progress}
		err = merged.Materialize(ctx, opts.Output, merge.Options{MaxSize: maxSize, Layers: layers, BeforeCommit: store, AllowHiddenText: opts.AllowHiddenText})
	}
	done()
	if err != nil {
		return withAllowHiddenTextHint(err)
	}
	out := pullResult{
		Packages:  describeGraph(graph),
		Skills:    describeMerge(merged),
		Overrides: overrideLines(merged),
		Output:    opts.Output,
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, out)
	}
	printGraphNotes(opts.IO, out)
	for _, p := range out.Packages {
		if p.Direct {
			fmt.Fprintln(opts.IO.Out, pinnedReference(p.Reference, p.Digest))
		}
	}
	if opts.Output != "" {
		fmt.Fprintf(opts.IO.ErrOut, "Pulled %s; %s in %s\n", plural(int64(len(out.Packages)), "package"), plural(int64(len(out.Skills)), "skill"), opts.Output)
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
