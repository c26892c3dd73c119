package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/workflow"
)

type installOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Env     newEnv
	Remote  remoteOptions
	Where   installScope
	Sources []string
	Force   bool
	Frozen  bool
	Verify  verifyFlags
	// Limits are --max-size and --max-files.
	Limits limitFlags
	// AllowHiddenText is --allow-hidden-text.
	AllowHiddenText bool
	// Version is --version, NoSave --no-save.
	Version string
	NoSave  bool
	// DryRun is --dry-run of install, remove and update.
	DryRun bool
	// Choice is --plugin, --skill and --strict of install and add.
	Choice sourceChoice
}

func newInstallCmd(f *factory, runF func(context.Context, *installOptions) error) *cobra.Command {
	opts := &installOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "install [SOURCE...]",
		Short: "Install layered skill packages into agent runtimes' folders, and lock them",
		Long: `Resolve the packages of install.sources of stax.yaml (registry references,
oci: layouts, package directories, or git repositories), layer them — later sources win,
every source's dependencies below all sources, a winning skill replacing
the whole directory of the one it overrides — and install the result into
the skills folder of each runtime, writing stax.lock. A source stax.lock
was written for stays at the version and digest it holds while stax.yaml
asks for it (its range allows the locked version): only stax update, or a
changed declaration, moves it.

SOURCE packages named here are first added to install.sources, as stax add
does (stax.yaml is written once the install succeeded), and resolved
again; --no-save installs them once beside the other sources, at what
stax.lock holds, and writes neither stax.yaml nor stax.lock. --version RANGE
installs the highest version of the one SOURCE's repository the range
allows (^1.2.0, ~1.2, 1.x, >=1.0.0 <2.0.0, 1.0.0 - 2.0.0, ||), and
stax.yaml keeps the range; a range nothing matches fails (exit 4) listing
the tags there are.

stax records what it installs in each folder (` + install.RecordFile + `; in user
scope under $STAX_HOME/user/.records). It never
replaces or removes a skill directory it did not install: a skill of yours
with the name of one being installed fails the install (exit 5) unless
--force. Skills it installed before that are no longer in the set are
removed. A skill it installed that you changed since is never replaced or
removed without --force (exit 5, naming the files); with --force, what is
replaced is moved to a backup under .stax/backup, and the message says
where.

All folders and stax.lock change as one transaction: if anything fails,
or stax is killed, the previous install stays (or the next stax run puts it
back, and says so). Names read from packages, records and stax.lock that
cannot be a plain directory name are refused before anything is touched.
In SKILL.md, ${STAX_SKILL_DIR} and ${STAX_WORKSPACE} become the installed
paths; $ARGUMENTS is left to the runtime.

--frozen installs exactly the digests of stax.lock, its packages' and its
skills', and fails (exit 4) if stax.yaml and stax.lock disagree, a package
or skill is not at its locked digest, or a locked digest cannot be fetched.

--dry-run resolves the sources and prints the plan — per folder the skills
it would install, update, remove and keep, and the skills of yours in the
way — and the change of stax.lock, writing nothing.

--scope user installs into the home directory's folders apart from any
project: runtimes from --runtime, else install.runtimes of
$STAX_HOME/config.yaml; sources and stax.lock under $STAX_HOME/user; no
project's stax.yaml or stax.lock is read or written.`,
		Example: `  stax install github.com/anthropics/skills --plugin document-skills
  stax install ghcr.io/org/skills:2.0.0 ghcr.io/team/skills:1.4.0 --runtime claude-code,cursor
  stax install ghcr.io/org/skills --version ^2.0.0
  stax install                      # install.sources and install.runtimes of stax.yaml
  stax install ghcr.io/org/tryout:1.0.0 --no-save
  stax install --frozen             # in CI: exactly what stax.lock pins
  stax install --scope user --runtime codex ./my-skills`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sources = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInstall(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd)
	cmd.Flags().BoolVar(&opts.Frozen, "frozen", false, "install exactly what stax.lock pins; fail if it does not match stax.yaml")
	opts.addVersionFlag(cmd)
	opts.Choice.addFlags(cmd)
	cmd.Flags().BoolVar(&opts.NoSave, "no-save", false, "install the SOURCEs named beside the others once, writing neither stax.yaml nor stax.lock")
	opts.addDryRunFlag(cmd)
	return cmd
}

// addDryRunFlag declares --dry-run of install and remove.
func (opts *installOptions) addDryRunFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the plan (skills installed, updated, removed, kept) and the change of stax.lock, and write nothing")
}

// addFlags declares the flags of every command that installs (install,
// add, remove).
func (opts *installOptions) addFlags(cmd *cobra.Command) {
	opts.Where.addFlags(cmd, "runtimes to install into")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace skills of yours that have the name of one being installed, and installed skills you changed; they are moved to a backup under .stax/backup")
	opts.Limits.add(cmd, "package")
	addAllowHiddenTextFlag(cmd, &opts.AllowHiddenText, "install")
	opts.Remote.addFlags(cmd)
	opts.Remote.addTransferFlags(cmd)
	opts.Verify.addFlags(cmd)
}

func (opts *installOptions) addVersionFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&opts.Version, "version", "", "install the highest version of the SOURCE's repository in this range (e.g. ^1.2.0, ~1.2, >=1.0.0 <2.0.0), and keep the range in stax.yaml")
}

// options are the workflow's options of an install.
func (opts *installOptions) options() workflow.InstallOptions {
	return workflow.InstallOptions{
		Where: opts.Where.where(), Sources: opts.Sources, Version: opts.Version, NoSave: opts.NoSave, Force: opts.Force, Frozen: opts.Frozen,
		Limits: opts.Limits.limits(), AllowHiddenText: opts.AllowHiddenText,
		Verify: opts.Verify.verification(), DryRun: opts.DryRun,
		Plugin: opts.Choice.Plugin, Skills: opts.Choice.Skills, Strict: opts.Choice.Strict,
	}
}

func runInstall(ctx context.Context, opts *installOptions) error {
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Install(ctx, env, opts.options())
	finish()
	if err != nil {
		return withAllowHiddenTextHint(err)
	}
	return printInstall(opts.IO, opts.Global, res)
}
