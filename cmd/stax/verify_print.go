package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

// printVerify reports each folder's drift. The names of skills and files
// are what is on disk, which anyone who can write the folder chose: each
// is escaped.
func printVerify(streams *IOStreams, res workflow.VerifyInstalledResult) {
	esc := termtext.Escape
	if res.Manifest != "" {
		// The sources in the message are stax.yaml's, anyone's to write.
		fmt.Fprintf(streams.Out, "%s: not what stax.yaml asks for: %s\n", lock.FileName, esc(res.Manifest))
	}
	for _, t := range res.Targets {
		where := strings.Join(t.Runtimes, ",") + ": " + esc(t.Dir)
		if len(t.Drift) == 0 && len(t.Unlocked) == 0 && len(t.Unsigned) == 0 {
			fmt.Fprintf(streams.Out, "%s: verified\n", where)
			continue
		}
		for _, d := range t.Drift {
			if d.Missing {
				fmt.Fprintf(streams.Out, "%s: skill %s: removed\n", where, esc(d.Skill))
			}
			if d.Relocated {
				fmt.Fprintf(streams.Out, "%s: skill %s: written for another place; run stax install to write it for this one\n", where, esc(d.Skill))
			}
			for _, f := range d.Changed {
				fmt.Fprintf(streams.Out, "%s: skill %s: changed %s\n", where, esc(d.Skill), esc(f))
			}
			for _, f := range d.Added {
				fmt.Fprintf(streams.Out, "%s: skill %s: added %s\n", where, esc(d.Skill), esc(f))
			}
			for _, f := range d.Removed {
				fmt.Fprintf(streams.Out, "%s: skill %s: removed %s\n", where, esc(d.Skill), esc(f))
			}
		}
		for _, u := range t.Unsigned {
			for _, f := range u.Files {
				fmt.Fprintf(streams.Out, "%s: skill %s: not as signed: %s\n", where, esc(filepath.Base(u.Dir)), esc(f))
			}
		}
		for _, name := range t.Unlocked {
			fmt.Fprintf(streams.Out, "%s: skill %s: not the digest %s pins\n", where, esc(name), lock.FileName)
		}
	}
}

// installHint is the install that writes the skills of res again as
// installed, where is the folders verified: one the user deleted takes
// an install, one the user changed --force, which keeps the user's copy
// in a backup. Empty when no skill is either. The install puts a skill
// stax.lock does not pin as the lock has it too (one installed with
// --no-save is removed): the hint names those still there, and takes
// --force when the user changed one, which an install refuses to touch.
// With no stax.lock the install is that of the package again, with
// --no-save, as the skills were installed.
func installHint(res workflow.VerifyInstalledResult, where installScope) string {
	missing, changed, force := false, false, false
	var unlocked []string
	for _, t := range res.Targets {
		gone := map[string]bool{}
		for _, d := range t.Drift {
			gone[d.Skill] = d.Missing
			edited := !d.Missing && !d.Relocated
			if slices.Contains(t.Unlocked, d.Skill) {
				force = force || edited
				continue
			}
			missing = missing || d.Missing
			changed = changed || edited
		}
		for _, s := range t.Unlocked {
			if !gone[s] && !slices.Contains(unlocked, s) {
				unlocked = append(unlocked, s)
			}
		}
	}
	if !changed && !missing {
		return ""
	}
	args := []string{"stax", "install"}
	if res.NoLock {
		// With no stax.lock, a plain install has nothing to put back
		// (no stax.yaml: it fails) or puts stax.yaml's resolution now.
		args = append(args, "--no-save", "REF")
	}
	if changed || force {
		args = append(args, "--force")
	}
	if where.Scope != "" {
		args = append(args, "--scope", where.Scope)
	}
	if where.Dir != "." && where.Scope != "user" {
		args = append(args, "--dir", where.Dir)
	}
	if len(where.Runtimes) > 0 {
		args = append(args, "--runtime", strings.Join(where.Runtimes, ","))
	}
	hint := fmt.Sprintf("`%s` writes the skills removed since again", termtext.Command(args...))
	if changed {
		hint = fmt.Sprintf("`%s` writes the skills you changed as installed", termtext.Command(args...))
	}
	if changed || force {
		hint += ", and moves your copies to " + install.BackupDir
	}
	if res.NoLock {
		hint += ", where REF is the package they came from (no " + lock.FileName + " pins them)"
	}
	if len(unlocked) > 0 {
		hint += fmt.Sprintf("; it puts %s as stax.lock has it too, which removes a skill installed with --no-save", strings.Join(unlocked, ", "))
	}
	return hint
}

// printVerifiedPackage shows the signature check of a package; failed is
// the error of one that did not verify, which JSON output reports after
// the result.
func printVerifiedPackage(streams *IOStreams, global *globalOptions, res *workflow.VerifyResult, failed error) error {
	if !global.json() {
		if res.Verified {
			// The certificate names the signer and issuer: escaped.
			signer := termtext.Escape(res.Signer)
			if res.Issuer != "" {
				signer += " (issuer " + termtext.Escape(res.Issuer) + ")"
			}
			fmt.Fprintf(streams.Out, "%s@%s: verified, signed by %s at %s\n", res.Reference, res.Digest, signer, signedAtText(res.SignedAt))
		}
		return failed
	}
	if err := writeJSON(streams.Out, res); err != nil {
		return err
	}
	if failed != nil {
		// The command root writes it as every JSON error is written, to
		// the stream --quiet keeps.
		return errdefs.MarkDataLoss(failed)
	}
	return nil
}
