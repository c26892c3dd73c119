package main

import (
	"context"
	"fmt"
	"github.com/stax-dev/stax/pkg/workflow"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/trust"
)

type installOptions struct {
	IO      *IOStreams
	Global  *globalOptions
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
	opts := &installOptions{IO: f.IO, Global: f.Global}
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
	def, err := project.LoadDir(opts.Where.Dir)
	if err != nil {
		return err
	}
	sources, err := packageArguments(opts.IO, opts.Sources, opts.Where.Dir)
	if err != nil {
		return err
	}
	if len(sources) == 0 && def != nil && def.Install != nil {
		sources = def.Install.Sources
	}
	if len(sources) == 0 {
		return errdefs.Invalid(fmt.Errorf("nothing to install: name sources, or list them under install.sources in %s", filepath.Join(opts.Where.Dir, project.FileName)))
	}
	placement, err := opts.Where.place(def)
	if err != nil {
		return err
	}
	var pinned *lock.Lock
	if opts.Frozen {
		if pinned, err = lock.ReadFrozen(filepath.Join(opts.Where.Dir, lock.FileName), sources); err != nil {
			return err
		}
	}

	opener, maxSize, err := opts.Remote.setup(opts.Global, &opts.MaxSize)
	if err != nil {
		return err
	}
	lockDir, err := opts.Global.lockDir()
	if err != nil {
		return err
	}
	copyOpts, done := opts.Remote.transferOptions(opts.IO, opts.Global)
	installed, err := install.Sources(ctx, install.Request{
		Sources: sources, ProjectDir: opts.Where.Dir, Opener: opener, MaxSize: maxSize, MaxFiles: opts.MaxFiles.Limit(),
		Frozen: pinned, Copy: copyOpts, Placement: placement, Force: opts.Force, LockDir: lockDir,
		AllowHiddenText: opts.AllowHiddenText,
		Verify: func(g *resolve.Graph, require map[digest.Digest]bool) (map[digest.Digest]string, error) {
			outcomes, err := trust.Enforce(ctx, install.TrustPackages(g), opts.Verify.options(opts.IO, opts.Global, def.TrustPolicy(opts.Where.Dir), require, maxSize))
			return trust.Signers(outcomes), err
		},
	})
	done()
	if err != nil {
		return withAllowHiddenTextHint(err)
	}
	defer installed.Graph.Close()
	for _, r := range installed.Results {
		printInstallNotes(opts.IO, r)
	}
	out := installResult{
		Sources: sources, Packages: workflow.Packages(installed.Graph), Skills: workflow.Skills(installed.Merged),
		Overrides: workflow.Overrides(installed.Merged), Warnings: installed.Warnings, Targets: []targetResult{},
		Lock: installed.LockPath, LockChanged: installed.LockChanged,
	}
	for i, t := range placement.Targets {
		out.Targets = append(out.Targets, targetResult{Runtimes: install.Names(t.Runtimes), Result: installed.Results[i]})
	}
	return printInstall(opts.IO, opts.Global, out)
}
