package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/proposal"
	"github.com/stax-dev/stax/pkg/workflow"
)

type applyOptions struct {
	IO     *IOStreams
	Global *globalOptions
	// Proposal is the proposal file; "-" reads stdin.
	Proposal string
	// SkillsDir is DIR; empty means the current package's skills directory.
	SkillsDir string
	partFlags
	DryRun bool
	// Keys are public key files; with any, the proposal is applied only
	// when its detached signature verifies with one of them.
	Keys []string
	// Signature is the signature file; empty is PROPOSAL.json.sigstore.json.
	Signature string
}

func newApplyCmd(f *factory, runF func(context.Context, *applyOptions) error) *cobra.Command {
	opts := &applyOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "apply PROPOSAL.json [DIR]",
		Short: "Check a skill-update proposal and write it into a skills directory",
		Long: `Apply a skill-update proposal, the JSON an agent writes to revise, narrow,
replace or create a skill:

  {"summary": "…", "operation_type": "revise|narrow|replace|create",
   "upsert_files": {"<slug>/SKILL.md": "…", "<slug>/references/x.md": "…"}}

(or the legacy single-key form: the SKILL.md text alone, as "skill_md", or as
the one key "SKILL.md" of upsert_files, for the skill its name names).
It is checked against every rule first: format (UTF-8 JSON, each file
named once and at most 100,000 lines), safe-paths (each file inside its
skill's folder, no traversal, no hidden file or folder such as .git,
nothing written through a symlink), operation (create makes a new skill,
the others change an existing one),
name-is-slug, name-unchanged (only replace may rename), description-length
(1024 characters), tier3-cited (every file under scripts/, references/ or
assets/ cited from SKILL.md) and validation (the skill as it would be
written passes stax validate). A rejected proposal writes nothing and exits 1
naming the rules it broke; one that changes nothing is a no-op.

Then every file is written, or none is, and the skill's version is bumped
from its current one: patch when SKILL.md is unchanged (only MEMORY.md or
other files change), minor for revise and narrow, major for replace
(--patch, --minor or --major override it); MEMORY.md's version and
lastUpdated follow. A created skill keeps the version it proposes.

With --key PUB, the proposal is applied only when its signature (a Sigstore
bundle, PROPOSAL.json.sigstore.json as stax propose --key writes it, or
--signature FILE) verifies with PUB and signs exactly the proposal's bytes;
otherwise it exits 6 and writes nothing.

DIR is the skills directory (default: the current package's); PROPOSAL.json
may be - for stdin (then --key needs --signature).`,
		Example: `  stax apply proposal.json skills
  agent-run | stax apply - --dry-run
  stax apply proposal.json --output json
  stax apply learnings.json skills --key ana.pub`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Proposal = args[0]
			if len(args) == 2 {
				opts.SkillsDir = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runApply(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.DryRun, "dry-run", false, "check and show what would change, without writing")
	flags.StringSliceVar(&opts.Keys, "key", nil, "public key files: apply only a proposal whose signature verifies with one of them")
	flags.StringVar(&opts.Signature, "signature", "", "the proposal's signature file (default: PROPOSAL.json"+proposal.SignatureSuffix+"); with --key")
	opts.partFlags.addFlags(cmd, "bump the %s version, whatever the change", "")
	cmd.MarkFlagsMutuallyExclusive("patch", "minor", "major")
	return cmd
}

func runApply(ctx context.Context, opts *applyOptions) error {
	part, err := opts.partFlags.part()
	if err != nil {
		return err
	}
	// Applying reads no store nor registry: its Env needs no opener.
	env := &workflow.Env{Getenv: opts.Global.getenv}
	res, err := workflow.Apply(ctx, env, workflow.ApplyOptions{
		Proposal: opts.Proposal, Stdin: opts.IO.In, SkillsDir: opts.SkillsDir, Part: part, DryRun: opts.DryRun,
		Keys: opts.Keys, Signature: opts.Signature, Notes: opts.IO.ErrOut,
	})
	if opts.Global.json() && res != nil {
		// A rejected proposal's result is printed too, with its error.
		if werr := writeJSON(opts.IO.Out, res); werr != nil {
			return werr
		}
		return err
	}
	if err != nil {
		return err
	}
	return printApply(opts.IO.Out, opts.IO.ErrOut, res.Result)
}
