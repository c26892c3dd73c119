package workflow

import (
	"context"
	"errors"
	"io"

	"github.com/stax-dev/stax/pkg/bump"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/proposal"
)

// ApplyOptions say which proposal Apply checks and writes, and where.
type ApplyOptions struct {
	// Proposal is the proposal file; "-" reads Stdin. Required.
	Proposal string
	// Stdin is read for the proposal "-".
	Stdin io.Reader
	// SkillsDir is the skills directory the proposal's paths start from;
	// empty is that of the package in the current directory.
	SkillsDir string
	// Part overrides the version bump the change implies; empty keeps it
	// (see proposal.Options).
	Part bump.Part
	// DryRun checks and reports without writing.
	DryRun bool
	// Keys are public key files: with any, the proposal is applied only
	// when its detached signature verifies with one of them. None applies
	// it unsigned.
	Keys []string
	// Signature is the signature file, checked with Keys; empty is the
	// proposal's path with proposal.SignatureSuffix.
	Signature string
	// Notes learns who signed a proposal that verified; nil discards it.
	Notes io.Writer
}

// Apply checks a skill-update proposal against every rule, and its
// signature with Keys, then writes all of its files or none, bumping the
// skill's version (dated $SOURCE_DATE_EPOCH when the Env has it). A
// rejected proposal returns its outcome, the rules it broke, with the
// error, as proposal.ApplyFile does.
func Apply(_ context.Context, env *Env, opts ApplyOptions) (*proposal.ApplyFileResult, error) {
	dir, err := SkillsDir(opts.SkillsDir)
	if err != nil {
		return nil, err
	}
	today, err := pack.SourceDate(env.getenv)
	if err != nil {
		return nil, err
	}
	check, err := opts.signatureCheck()
	if err != nil {
		return nil, err
	}
	return proposal.ApplyFile(opts.Proposal, opts.Stdin, proposal.Options{SkillsDir: dir, Part: opts.Part, DryRun: opts.DryRun, Today: today, Check: check})
}

// signatureCheck is the check of the proposal's signature Keys ask for;
// nil without Keys.
func (opts ApplyOptions) signatureCheck() (func([]byte) error, error) {
	if len(opts.Keys) == 0 {
		if opts.Signature != "" {
			return nil, errdefs.Invalid(errors.New("--signature is checked with --key: pass the sender's public key"))
		}
		return nil, nil
	}
	notes := opts.Notes
	if notes == nil {
		notes = io.Discard
	}
	return proposalCheck(opts.Proposal, opts.Signature, opts.Keys, notes)
}
