package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/workflow"
)

// discoveryOptions are the flags list and show share: which runtime, and
// which project.
type discoveryOptions struct {
	Runtime string
	Project string
}

func (d *discoveryOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&d.Runtime, "runtime", agent.Default,
		"the agent runtime: "+strings.Join(agent.Names(), ", "))
	cmd.Flags().StringVar(&d.Project, "dir", ".", "the project directory the runtime runs in")
}

// list reads what the runtime sees from the project and the user's home.
func (d *discoveryOptions) list() (*discover.Listing, error) {
	opts, err := d.resolve()
	if err != nil {
		return nil, err
	}
	l, err := discover.List(opts)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	return l, nil
}

// runtime finds the runtime of --runtime: one stax knows, else one the
// project's stax.yaml defines by its folders, which is read only then.
func (d *discoveryOptions) runtime(project string) (agent.Runtime, error) {
	if rt, ok := agent.Lookup(d.Runtime); ok {
		return rt, nil
	}
	def, err := staxyaml.LoadDir(project)
	if err != nil {
		return agent.Runtime{}, err
	}
	var defaults *staxyaml.InstallSpec
	if def != nil {
		defaults = def.Install
	}
	rt, err := install.FindRuntime(d.Runtime, defaults)
	if err != nil {
		return agent.Runtime{}, errdefs.Invalid(err)
	}
	return rt, nil
}

// resolve turns the flags into the runtime and the absolute project and
// home directories.
func (d *discoveryOptions) resolve() (discover.Options, error) {
	project, err := filepath.Abs(d.Project)
	if err != nil {
		return discover.Options{}, errdefs.MarkLocal(err)
	}
	rt, err := d.runtime(project)
	if err != nil {
		return discover.Options{}, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return discover.Options{}, errdefs.MarkLocal(fmt.Errorf("locate the home directory: %w", err))
	}
	return discover.Options{Runtime: rt, Project: project, Home: home}, nil
}

type listOptions struct {
	IO     *IOStreams
	Global *globalOptions
	discoveryOptions
	Prompt bool
}

func newListCmd(f *factory, runF func(context.Context, *listOptions) error) *cobra.Command {
	opts := &listOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "list [--runtime NAME] [--dir PROJECT]",
		Short: "List the skills an agent runtime would load",
		Long: `List the skills a runtime sees from its folders, in its priority order: the
project folders, the user folders, then plugin folders where the runtime has
them. A skill shadows any skill with the same directory name in a later
folder; shadowed skills are listed with what shadows them. A skill the
runtime cannot load (its SKILL.md frontmatter does not parse, or has no name
or description) is listed with a warning saying why, never left out. Each
skill stax installed shows the package, version and digest it came from, as
the install record of its folder says; a skill stax did not install shows
"local".

--prompt prints instead the menu a runtime puts in its Skill tool's
description: one "- name: description" line per skill it offers the model.

Runtimes: ` + strings.Join(agent.Names(), ", ") + `; the default is ` + agent.Default + `.`,
		Example: `  stax list
  stax list --runtime cursor --dir ~/src/app
  stax list --prompt --runtime codex`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(opts)
		},
	}
	opts.addFlags(cmd)
	cmd.Flags().BoolVar(&opts.Prompt, "prompt", false, "print the name: description menu a runtime gives the model")
	return cmd
}

func runList(opts *listOptions) error {
	dopts, err := opts.resolve()
	if err != nil {
		return err
	}
	l, err := workflow.List(dopts, opts.Global.getenv)
	if err != nil {
		return err
	}
	if opts.Prompt {
		if opts.Global.json() {
			return writeJSON(opts.IO.Out, struct {
				Runtime string `json:"runtime"`
				Prompt  string `json:"prompt"`
			}{l.Runtime, l.Prompt()})
		}
		_, err := io.WriteString(opts.IO.Out, l.Prompt())
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, l)
	}
	printListWarnings(opts.IO.ErrOut, l, opts.Global.Verbose)
	return printList(opts.IO.Out, l)
}
