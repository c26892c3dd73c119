package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/workflow"
)

// printInstall writes what install did: JSON, or one line per folder on
// stdout with the notes and warnings on stderr.
func printInstall(streams *IOStreams, global *globalOptions, out *workflow.InstallResult) error {
	if global.json() {
		return writeJSON(streams.Out, out)
	}
	printGraphNotes(streams, out.Packages, out.Overrides)
	for _, w := range out.Warnings {
		fmt.Fprintf(streams.ErrOut, "warning: %s\n", w)
	}
	if out.Saved != "" {
		fmt.Fprintf(streams.ErrOut, "saved install.sources in %s\n", out.Saved)
	}
	for _, t := range out.Targets {
		fmt.Fprintf(streams.Out, "%s: %s: %d installed, %d updated, %d removed, %d unchanged\n",
			strings.Join(t.Runtimes, ","), t.Dir, len(t.Installed)+len(t.Replaced), len(t.Updated), len(t.Removed), len(t.Unchanged))
		for _, u := range t.Updates {
			fmt.Fprintf(streams.Out, "  updated %s: %s\n", u.Skill, describeUpdate(u))
		}
		for _, m := range t.Merged {
			fmt.Fprintf(streams.Out, "  merged %s/%s: kept your %s, took the new version's\n", m.Skill, m.File, plural(int64(m.Kept), "entry"))
		}
	}
	return nil
}

// describeUpdate says where an updated skill came from and comes from
// now: "REF 1.0.0 → 1.1.0, sha256:… → sha256:…", with both references
// when the package changed, and "?" for a version an older record
// does not hold.
func describeUpdate(u install.Update) string {
	pkg := u.To.Package
	if u.From.Package != u.To.Package {
		pkg = u.From.Package + " → " + u.To.Package
	}
	return fmt.Sprintf("%s %s → %s, %s → %s", pkg, cmp.Or(u.From.Version, "?"), cmp.Or(u.To.Version, "?"), u.From.Digest, u.To.Digest)
}
