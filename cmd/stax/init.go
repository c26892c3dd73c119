package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

type initOptions struct {
	IO         *IOStreams
	Global     *globalOptions
	Dir        string
	Definition staxyaml.Definition
	Force      bool
}

type initResult struct {
	Path       string              `json:"path"`
	Definition staxyaml.Definition `json:"definition"`
}

func newInitCmd(f *factory, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a stax.yaml package definition",
		Long: `Write DIR/stax.yaml (DIR defaults to the current directory) and create the
skills directory it names if it does not exist. The name defaults to the
directory's name. An existing stax.yaml is kept unless --force is given.`,
		Example: `  stax init
  stax init ./team-skills --name team-skills --version 1.0.0 --author "Platform team"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInit(opts)
		},
	}
	flags := cmd.Flags()
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

func runInit(opts *initOptions) error {
	def := opts.Definition
	if def.Name == "" {
		def.Name = staxyaml.NameFromDir(opts.Dir)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return errdefs.IO(fmt.Errorf("create %s: %w", opts.Dir, err))
	}
	path := filepath.Join(opts.Dir, staxyaml.FileName)
	if err := staxyaml.Write(path, &def, opts.Force); err != nil {
		return err
	}
	skills := filepath.Join(opts.Dir, filepath.FromSlash(def.Skills))
	if err := os.MkdirAll(skills, 0o755); err != nil {
		return errdefs.IO(fmt.Errorf("create skills directory %s: %w", skills, err))
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, initResult{Path: path, Definition: def})
	}
	fmt.Fprintf(opts.IO.Out, "%s\n", path)
	fmt.Fprintf(opts.IO.ErrOut, "Wrote %s for %s %s; add skills under %s, then run `stax pack %s`.\n", path, def.Name, def.Version, skills, opts.Dir)
	return nil
}
