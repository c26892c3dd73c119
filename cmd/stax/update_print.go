package main

import (
	"cmp"
	"fmt"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

// printUpdate writes the plan on stdout, one line a range, package and
// skill, then what the install did.
func printUpdate(io *IOStreams, global *globalOptions, res *workflow.UpdateResult) error {
	if global.json() {
		return writeJSON(io.Out, res)
	}
	if !res.Changed() {
		fmt.Fprintln(io.Out, "nothing to update: every package is at the newest version stax.yaml allows")
		return nil
	}
	for _, r := range res.Ranges {
		fmt.Fprintf(io.Out, "%s range %s → %s\n", termtext.Escape(r.Ref), termtext.Escape(r.Old), termtext.Escape(r.New))
	}
	printLockChanges(io, res.Packages, res.Skills)
	if res.DryRun {
		fmt.Fprintln(io.ErrOut, "dry run: nothing was changed")
		return nil
	}
	return printInstall(io, global, res.Install)
}

// printLockChanges writes a line a package whose digest changes and a
// line a skill added, removed or changed. Declarations, versions and
// paths come from stax.yaml files and packages: escaped.
func printLockChanges(io *IOStreams, packages []workflow.PackageUpdate, skills []workflow.SkillUpdate) {
	esc := termtext.Escape
	for _, p := range packages {
		switch p.Change {
		case workflow.ChangeAdded:
			fmt.Fprintf(io.Out, "%s added %s (%s)\n", esc(p.Ref), esc(cmp.Or(p.NewVersion, "-")), shortDigest(p.NewDigest))
		case workflow.ChangeRemoved:
			fmt.Fprintf(io.Out, "%s removed %s (%s)\n", esc(p.Ref), esc(cmp.Or(p.OldVersion, "-")), shortDigest(p.OldDigest))
		default:
			fmt.Fprintf(io.Out, "%s %s → %s (%s → %s)\n", esc(p.Ref), esc(cmp.Or(p.OldVersion, "-")), esc(cmp.Or(p.NewVersion, "-")),
				shortDigest(p.OldDigest), shortDigest(p.NewDigest))
		}
	}
	for _, s := range skills {
		fmt.Fprintf(io.Out, "  %s %s (%s)\n", s.Change, esc(s.Path), esc(s.Package))
	}
}

// shortDigest is a digest as a person compares two: its algorithm and
// first twelve hex digits.
func shortDigest(d digest.Digest) string {
	if err := d.Validate(); err != nil || len(d.Encoded()) < 12 {
		return d.String()
	}
	return d.Algorithm().String() + ":" + d.Encoded()[:12]
}
