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
	MaxSize byteSize
	Verify  verifyFlags
	// MaxFiles is --max-files.
	MaxFiles maxFilesFlag
	// AllowHiddenText is --allow-hidden-text.
	AllowHiddenText bool
}

func newInstallCmd(f *factory, runF func(context.Context, *installOptions) error) *cobra.Command {
	opts := &installOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "install [SOURCE...]",
		Short: "Install layered skill packages into agent runtimes' folders, and lock them",
		Long: `Resolve the SOURCE packages (registry references, oci: layouts, or package
directories; default: install.sources of stax.yaml), layer them — later
sources win, every source's dependencies below all sources, a winning skill
replacing the whole directory of the one it overrides — and install the
result into the skills folder of each runtime, writing stax.lock.

stax records what it installs in each folder (` + install.RecordFile + `). It never
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
or skill is not at its locked digest, or a locked digest cannot be fetched.`,
		Example: `  stax install ghcr.io/org/skills:2.0.0 ghcr.io/team/skills:1.4.0 --runtime claude-code,cursor
  stax install                      # install.sources and install.runtimes of stax.yaml
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
	opts.Where.addFlags(cmd, "runtimes to install into")
	flags := cmd.Flags()
	flags.BoolVar(&opts.Force, "force", false, "replace skills of yours that have the name of one being installed, and installed skills you changed; they are moved to a backup under .stax/backup")
	flags.BoolVar(&opts.Frozen, "frozen", false, "install exactly what stax.lock pins; fail if it does not match stax.yaml")
	addMaxSizeFlag(cmd, &opts.MaxSize, "package")
	addMaxFilesFlag(cmd, &opts.MaxFiles)
	addAllowHiddenTextFlag(cmd, &opts.AllowHiddenText, "install")
	opts.Remote.addFlags(cmd)
	opts.Remote.addTransferFlags(cmd)
	opts.Verify.addFlags(cmd)
	return cmd
}

func runInstall(ctx context.Context, opts *installOptions) error {
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Install(ctx, env, workflow.InstallOptions{
		Where: opts.Where.where(), Sources: opts.Sources, Force: opts.Force, Frozen: opts.Frozen,
		MaxSize: opts.MaxSize.Limit(), MaxFiles: opts.MaxFiles.Limit(), AllowHiddenText: opts.AllowHiddenText,
		Verify: opts.Verify.verification(),
	})
	finish()
	if err != nil {
		return withAllowHiddenTextHint(err)
	}
	return printInstall(opts.IO, opts.Global, res)
}
