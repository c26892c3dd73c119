package main

import (
	"fmt"
	"github.com/stax-dev/stax/pkg/workflow"
	"strings"

	"github.com/stax-dev/stax/pkg/install"
)

type installResult struct {
	Sources   []string           `json:"sources"`
	Packages  []workflow.Package `json:"packages"`
	Skills    []workflow.Skill   `json:"skills"`
	Overrides []string           `json:"overrides"`
	Warnings  []string           `json:"warnings"`
	Targets   []targetResult     `json:"targets"`
	Lock      string             `json:"lock"`
	// LockChanged is false when stax.lock already said exactly this.
	LockChanged bool `json:"lockChanged"`
}

type targetResult struct {
	Runtimes []string `json:"runtimes"`
	*install.Result
}

// printInstall writes what install did: JSON, or one line per folder on
// stdout with the notes and warnings on stderr.
func printInstall(streams *IOStreams, global *globalOptions, out installResult) error {
	if global.json() {
		return writeJSON(streams.Out, out)
	}
	printGraphNotes(streams, out.Packages, out.Overrides)
	for _, w := range out.Warnings {
		fmt.Fprintf(streams.ErrOut, "warning: %s\n", w)
	}
	for _, t := range out.Targets {
		fmt.Fprintf(streams.Out, "%s: %s: %d installed, %d updated, %d removed, %d unchanged\n",
			strings.Join(t.Runtimes, ","), t.Dir, len(t.Installed)+len(t.Replaced), len(t.Updated), len(t.Removed), len(t.Unchanged))
	}
	return nil
}

// printInstallNotes says on stderr what an install did besides installing:
// an interrupted install it recovered, and where replaced skills went.
func printInstallNotes(io *IOStreams, r *install.Result) {
	if r.Recovered != "" {
		fmt.Fprintf(io.ErrOut, "note: %s\n", r.Recovered)
	}
	for _, b := range r.Backups {
		fmt.Fprintf(io.ErrOut, "note: the replaced skill was moved to %s\n", b)
	}
}
