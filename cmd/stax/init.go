package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

type initOptions struct {
	IO         *IOStreams
	Global     *globalOptions
	Dir        string
	Definition staxyaml.Definition
	Force      bool
	// Consumer and Package say what the project is; with neither, and no
	// package field given, init asks at a terminal (see initKind).
	Consumer, Package bool
	// packageFlags says a flag only a package has was given.
	packageFlags bool
}

func newInitCmd(f *factory, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a stax.yaml for a package, or for a project that installs packages",
		Long: `Write DIR/stax.yaml (DIR defaults to the current directory). An existing
stax.yaml is kept unless --force is given.

--package writes a package definition (name, version, ...) and creates the
skills directory it names if it does not exist; the name defaults to the
directory's name. --consumer writes only an install: section, for a
project that installs packages and publishes none: add them with
stax add REF (which also creates stax.yaml when there is none, so a
consumer needs no init at all). With neither, a package flag (--name,
--version, --skills, ...) means --package; otherwise init asks at a
terminal, and without one writes a package definition, as it always has.`,
		Example: `  stax init --consumer
  stax init ./team-skills --name team-skills --version 1.0.0 --author "Platform team"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			for _, name := range packageFlagNames {
				opts.packageFlags = opts.packageFlags || cmd.Flags().Changed(name)
			}
			if opts.Consumer && opts.packageFlags {
				return flagError(fmt.Errorf("--consumer writes no package fields: drop --consumer, or the package flags (%s)", strings.Join(packageFlagNames, ", ")))
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInit(opts)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.Consumer, "consumer", false, "write only an install: section, for a project that installs packages")
	flags.BoolVar(&opts.Package, "package", false, "write a package definition (the default without a terminal)")
	cmd.MarkFlagsMutuallyExclusive("consumer", "package")
	flags.StringVar(&opts.Definition.Name, "name", "", "package name (default: the directory name)")
	flags.StringVar(&opts.Definition.Version, "version", "0.1.0", "package version, also the default tag")
	flags.StringVar(&opts.Definition.Description, "description", "", "package description")
	flags.StringVar(&opts.Definition.Author, "author", "", "package author (the OCI vendor annotation)")
	flags.StringVar(&opts.Definition.License, "license", "", "SPDX license expression")
	flags.StringSliceVar(&opts.Definition.Tags, "tags", nil, "discovery tags, comma-separated")
	flags.StringVar(&opts.Definition.Skills, "skills", staxyaml.DefaultSkillsDir, "skills directory, relative to DIR")
	flags.BoolVar(&opts.Force, "force", false, "replace an existing stax.yaml")
	return cmd
}

// packageFlagNames are the flags of the fields only a package has.
var packageFlagNames = []string{"name", "version", "description", "author", "license", "tags", "skills"}

func runInit(opts *initOptions) error {
	consumer, err := initKind(opts)
	if err != nil {
		return err
	}
	res, err := workflow.Init(workflow.InitOptions{Dir: opts.Dir, Consumer: consumer, Definition: opts.Definition, Force: opts.Force})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	fmt.Fprintf(opts.IO.Out, "%s\n", res.Path)
	if consumer {
		fmt.Fprintf(opts.IO.ErrOut, "Wrote %s for a project that installs packages; add one with `stax add REF`.\n", res.Path)
		return nil
	}
	def := res.Definition
	fmt.Fprintf(opts.IO.ErrOut, "Wrote %s for %s %s; add skills under %s, then run `%s`.\n", res.Path, def.Name, def.Version, res.SkillsDir, termtext.Command("stax", "pack", opts.Dir))
	return nil
}

// initKind says whether init writes a consumer's stax.yaml. Without
// --consumer, --package or a package flag it asks at a terminal; without
// a terminal, or with --output json (a script's, even run from one), it
// writes a package definition, what init always wrote, so a script that
// ran it before gets what it got.
func initKind(opts *initOptions) (consumer bool, err error) {
	if opts.Consumer || opts.Package || opts.packageFlags || opts.IO.Prompter == nil || opts.Global.json() {
		return opts.Consumer, nil
	}
	for range 3 {
		answer, err := opts.IO.Prompter.Input("Does this project publish its own skills as a package (package), or only install packages (consumer)? [package/consumer, default package]: ")
		if err != nil {
			return false, errdefs.MarkLocal(fmt.Errorf("read the answer: %w", err))
		}
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "", "p", "package":
			return false, nil
		case "c", "consumer":
			return true, nil
		}
	}
	return false, flagError(fmt.Errorf("no answer of package or consumer: pass --package or --consumer"))
}
