package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/warning"
	"github.com/stax-dev/stax/pkg/workflow"
)

// printInstall writes what install did: JSON, or one line per folder on
// stdout with the notes and warnings on stderr.
func printInstall(streams *IOStreams, global *globalOptions, out *workflow.InstallResult) error {
	if out.Plan != nil {
		if !global.json() {
			printGraphNotes(streams, out.Packages, out.Overrides)
			printWarnings(streams, global, out.Warnings)
		}
		return printPlan(streams, global, out.Plan)
	}
	if global.json() {
		return writeJSON(streams.Out, out)
	}
	printGraphNotes(streams, out.Packages, out.Overrides)
	printWarnings(streams, global, out.Warnings)
	if out.Saved != "" {
		fmt.Fprintf(streams.ErrOut, "saved install.sources in %s\n", out.Saved)
	}
	for _, t := range out.Targets {
		fmt.Fprintf(streams.Out, "%s: %s: %d installed, %d updated, %d removed, %d unchanged\n",
			strings.Join(t.Runtimes, ","), t.Dir, len(t.Installed)+len(t.Replaced), len(t.Updated), len(t.Removed), len(t.Unchanged))
		for _, u := range t.Updates {
			if u.From == u.To {
				// The same package: its files were not as installed.
				fmt.Fprintf(streams.Out, "  restored %s: %s %s, %s: its files were not as installed\n", termtext.Escape(u.Skill),
					termtext.Escape(u.To.Package), termtext.Escape(cmp.Or(u.To.Version, "?")), termtext.Escape(string(u.To.Digest)))
				continue
			}
			fmt.Fprintf(streams.Out, "  updated %s: %s\n", termtext.Escape(u.Skill), describeUpdate(u))
		}
		for _, m := range t.Merged {
			fields := ""
			if len(m.Fields) > 0 {
				names := make([]string, len(m.Fields))
				for i, f := range m.Fields {
					names[i] = printable(f)
				}
				fields = " and your " + plural(int64(len(m.Fields)), "field") + " " + strings.Join(names, ", ")
			}
			fmt.Fprintf(streams.Out, "  merged %s/%s: kept your %s%s, took the new version's\n", termtext.Escape(m.Skill), termtext.Escape(m.File), plural(int64(m.Kept), "entry"), fields)
		}
	}
	return nil
}

// printWarnings writes ws on stderr, a line per kind of warning naming
// the skills it is about, or every warning with --verbose; the JSON of a
// result holds each.
func printWarnings(streams *IOStreams, global *globalOptions, ws []warning.Warning) {
	for _, line := range warning.Lines(ws, global.Verbose) {
		printNote(streams.ErrOut, "warning", line)
	}
}

// describeUpdate says where an updated skill came from and comes from
// now: "REF 1.0.0 → 1.1.0, sha256:… → sha256:…", with both references
// when the package changed, and "?" for a version an older record
// does not hold. The versions are the publisher's and the references
// a record's: escaped.
func describeUpdate(u install.Update) string {
	esc := termtext.Escape
	pkg := esc(u.To.Package)
	if u.From.Package != u.To.Package {
		pkg = esc(u.From.Package) + " → " + pkg
	}
	return fmt.Sprintf("%s %s → %s, %s → %s", pkg, esc(cmp.Or(u.From.Version, "?")), esc(cmp.Or(u.To.Version, "?")), esc(string(u.From.Digest)), esc(string(u.To.Digest)))
}

// printPlan writes what a dry run would do: per folder a line of counts
// and a line a skill, the change of stax.lock as update prints its plan,
// and the files of yours it would touch. --output json prints the plan.
func printPlan(streams *IOStreams, global *globalOptions, plan *workflow.Plan) error {
	if global.json() {
		return writeJSON(streams.Out, plan)
	}
	for _, t := range plan.Targets {
		fmt.Fprintf(streams.Out, "%s: %s: would install %d, update %d, remove %d, keep %d\n",
			strings.Join(t.Runtimes, ","), t.Dir, len(t.Install), len(t.Update), len(t.Remove), len(t.Keep))
		for _, step := range []struct {
			verb  string
			names []string
		}{{"install", t.Install}, {"update", t.Update}, {"remove", t.Remove}} {
			for _, name := range step.names {
				fmt.Fprintf(streams.Out, "  %s %s\n", step.verb, name)
			}
		}
		for _, name := range t.Conflicts {
			fmt.Fprintf(streams.Out, "  conflict %s: yours or changed by you (refused without --force, moved to a backup with it)\n", name)
		}
	}
	switch {
	case plan.Lock == "":
	case !plan.LockChanged:
		fmt.Fprintf(streams.Out, "%s: unchanged\n", plan.Lock)
	default:
		fmt.Fprintf(streams.Out, "%s:\n", plan.Lock)
		printLockChanges(streams, plan.Packages, plan.Skills)
	}
	if plan.Manifest != "" {
		fmt.Fprintf(streams.Out, "%s: install.sources would change\n", plan.Manifest)
	}
	fmt.Fprintf(streams.Out, "files of yours touched: %s\n", cmp.Or(strings.Join(plan.UserFiles, ", "), "none"))
	fmt.Fprintln(streams.ErrOut, "dry run: nothing was changed")
	return nil
}
