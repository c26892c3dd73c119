package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/proposal"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

type proposeOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	Where  installScope
	Skill  string
	// Output is the file the proposal is written to; empty is stdout.
	Output  string
	Summary string
	// Key is a private key file to sign the proposal with.
	Key string
}

func newProposeCmd(f *factory, runF func(context.Context, *proposeOptions) error) *cobra.Command {
	opts := &proposeOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "propose SKILL",
		Short: "Turn the local changes of an installed skill into a proposal for its package",
		Long: `Send learnings upstream: turn what changed in an installed stateful skill
since stax installed it — new MEMORY.md entries, an edited EXAMPLES.md or
CALIBRATION.md — into a skill-update proposal (operation_type revise, the
changed files whole in upsert_files) for the package's maintainer to run
stax apply on in the package source, which bumps the skill's patch version.

SKILL is the skill's directory name in a runtime's skills folder; the first
folder (of --runtime, --dir and --scope) whose install record holds it is
read. Which files changed comes from the install record; the package, read
from its OCI layout or the local store, tells which MEMORY.md entries are
new, and each new entry must be signed (— @you, YYYY-MM-DD). Changes to
SKILL.md (written with this machine's paths) and to other files are listed,
not proposed.

The proposal goes to -o FILE, else to stdout. With --key KEY (a key of stax
key generate or cosign; its password from $STAX_PASSWORD, else asked), a
signature over the proposal is written beside it as FILE.sigstore.json, a
Sigstore bundle the maintainer checks with stax apply FILE --key PUB. A skill that is not
installed, or has no changed stateful file, exits 1 and writes nothing.`,
		Example: `  stax propose incident-postmortem -o learnings.json
  stax propose incident-postmortem -o learnings.json --key ana.key
  # the maintainer, in the package source:
  stax apply learnings.json skills`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Skill = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPropose(cmd.Context(), opts)
		},
	}
	opts.Where.addFlags(cmd, "runtimes whose folders to look in")
	cmd.Flags().StringVarP(&opts.Output, "output-file", "o", "", "write the proposal to this file instead of stdout")
	cmd.Flags().StringVar(&opts.Summary, "summary", "", "the proposal's summary (default: what changed, and whose entries)")
	cmd.Flags().StringVar(&opts.Key, "key", "", "private key file to sign the proposal with; the signature goes beside -o FILE as FILE"+proposal.SignatureSuffix)
	return cmd
}

func runPropose(ctx context.Context, opts *proposeOptions) error {
	signer, err := proposeSigner(opts)
	if err != nil {
		return err
	}
	env, _, err := opts.Env(nil) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	res, err := workflow.Propose(ctx, env, workflow.ProposeOptions{Where: opts.Where.where(), Skill: opts.Skill, Summary: opts.Summary})
	if err != nil {
		return err
	}
	report, err := emitProposal(ctx, opts, res.Proposal, signer)
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(report, res)
	}
	printPropose(report, res, opts.Output, signer != nil)
	return nil
}

// emitProposal writes the proposal to -o (signed with signer), or to
// stdout; the report then goes where the proposal does not.
func emitProposal(ctx context.Context, opts *proposeOptions, p *proposal.Proposal, signer *signature.KeySigner) (io.Writer, error) {
	var text bytes.Buffer
	if err := writeJSON(&text, p); err != nil {
		return nil, err
	}
	if opts.Output != "" {
		return opts.IO.Out, workflow.WriteProposal(ctx, opts.Output, text.Bytes(), signer)
	}
	if _, err := opts.IO.Out.Write(text.Bytes()); err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	return opts.IO.ErrOut, nil
}

// proposeSigner loads the key of --key before anything is read, so that a
// wrong key or password writes nothing; nil without --key.
func proposeSigner(opts *proposeOptions) (*signature.KeySigner, error) {
	switch {
	case opts.Key == "":
		return nil, nil
	case opts.Output == "":
		return nil, errdefs.Invalid(fmt.Errorf("--key signs the proposal in a file beside it: pass -o FILE too"))
	}
	return loadSigner(opts.IO, opts.Global, opts.Key)
}

// printPropose reports the proposal written. Its names, paths and
// MEMORY.md section titles are the installed skill's, anyone's to write,
// so each is escaped.
func printPropose(w io.Writer, res *workflow.ProposeResult, output string, signed bool) {
	esc := termtext.Escape
	where, file := "stdout", "PROPOSAL.json"
	if output != "" {
		where, file = output, output
	}
	fmt.Fprintf(w, "proposal for %s written to %s: %s\n", esc(res.Skill), where, esc(res.Proposal.Summary))
	for _, f := range res.Files {
		status := "M"
		if f.Status == "added" {
			status = "A"
		}
		fmt.Fprintf(w, "  %s %s\n", status, esc(f.Path))
	}
	for _, e := range res.Entries {
		fmt.Fprintf(w, "  + MEMORY.md:%d  %s entry by %s, %s\n", e.Line, esc(e.Section), esc(e.Signer), esc(e.Date))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "  not proposed: %s\n", esc(s))
	}
	if signed {
		fmt.Fprintf(w, "signature written to %s%s\n", output, proposal.SignatureSuffix)
		fmt.Fprintf(w, "the maintainer applies it in the package source with: stax apply %s SKILLS_DIR --key YOUR_PUBLIC_KEY\n", file)
		return
	}
	fmt.Fprintf(w, "the maintainer applies it in the package source with: stax apply %s SKILLS_DIR\n", file)
}
