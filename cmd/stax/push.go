package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/workflow"
)

type pushOptions struct {
	IO          *IOStreams
	Global      *globalOptions
	Env         newEnv
	Remote      remoteOptions
	Source      string
	Destination string
	Build       buildFlags
	Getenv      func(string) string
	// Against is the published package a built package follows; empty
	// means whatever the destination reference already names.
	Against string
	// Sign signs the pushed package with the private key SignKey.
	Sign    bool
	SignKey string
	// PushDependencies pushes the package directories DIR depends on to
	// the references stax.yaml names beside them, first.
	PushDependencies bool
	// NoOverwrite refuses a tag of REF that names another package.
	NoOverwrite bool
	// AllowPlaceholders pushes skills that still hold what stax new
	// skill scaffolded.
	AllowPlaceholders bool
	// gitSource is set when Source is a git reference, whose package is
	// created at the epoch on every machine: SOURCE_DATE_EPOCH is not
	// read, so one that is not a number refuses nothing.
	gitSource bool
}

func newPushCmd(f *factory, runF func(context.Context, *pushOptions) error) *cobra.Command {
	opts := &pushOptions{IO: f.IO, Global: f.Global, Env: f.Env, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "push [DIR|STORED-REF|GITREF] REF",
		Short: "Push a package to a registry or an OCI layout",
		Long: `Push a package to REF. The source is a package directory (validated and
built exactly as pack builds it), a reference in the local store or an
OCI layout, or a git reference (GITREF, github.com/OWNER/REPO/SUBDIR#REF or
git+https://…; see docs/sources.md): the package is built from that
commit's tree as install builds it, annotated with the repository and the
commit, to mirror someone else's skills into your own registry. Blobs the
registry already has are not uploaded again. The flags that shape only a
package built from DIR are refused with a GITREF (exit 1), whose package
is built as install builds it, the same on every machine.

REF without a tag gets the package version as its tag; REF@sha256:… pushes
by digest only, without a tag, and must name the digest the package has.
On success the pinned reference REF@DIGEST is printed. A tag that names
another package is moved, and the push says so ("tag T moved: OLD → NEW");
--no-overwrite refuses it instead, before anything is pushed (exit 3). Of
pushes with --no-overwrite racing for one new tag, one wins and the others
exit 3 naming its digest (see docs/registries.md for the guarantee).`,
		Example: `  stax push ./skills ghcr.io/acme/skills:1.0.0
  stax push acme/skills:1.0.0 localhost:5000/acme/skills:1.0.0
  stax push . docker.io/acme/skills          # tag = the version in stax.yaml
  stax push . oci:./out:1.0.0
  stax push github.com/anthropics/skills#v1.1.0 registry.internal/mirror/skills`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.RangeArgs(1, 2)(cmd, args); err != nil {
				return err
			}
			// One argument is the destination of the current directory;
			// a directory there is a source whose destination is missing.
			if dir, _ := source.IsDirectory(args[0]); len(args) == 1 && dir {
				return fmt.Errorf("push needs the destination REF after the directory %s, such as: stax push %s ghcr.io/acme/skills:1.0.0", args[0], args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source, opts.Destination = ".", args[0]
			if len(args) == 2 {
				opts.Source, opts.Destination = args[0], args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			opts.gitSource = isGitSource(opts.Source)
			// Unset, the mode is the default the workflow applies, so a
			// git source is refused only a mode given.
			if !cmd.Flags().Changed("symlink-mode") {
				opts.Build.Symlinks = ""
			}
			return runPush(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	opts.Build.addStrict(cmd, "when building DIR or GITREF: ")
	opts.Build.addBuild(cmd, "uncompressed skills layer", "when building DIR: ")
	flags.StringVar(&opts.Against, "against", "", "when building DIR: the published package whose stateful files must not have changed without a version bump (default: what REF already names)")
	flags.BoolVar(&opts.PushDependencies, "push-dependencies", false, "when building DIR: first push each package directory it depends on to the ref: beside its path: in stax.yaml")
	flags.BoolVar(&opts.NoOverwrite, "no-overwrite", false, "refuse, before anything is pushed, a tag of REF that names another package already (a release tag is never moved by accident)")
	flags.BoolVar(&opts.AllowPlaceholders, "allow-placeholders", false, "when building DIR: push skills that still hold the TODO placeholders stax new skill wrote (refused by default, exit 1)")
	flags.BoolVar(&opts.Sign, "sign", false, "sign the pushed package with --key (see stax sign)")
	flags.StringVar(&opts.SignKey, "key", "", "with --sign: private key file")
	opts.Remote.addFlags(cmd)
	opts.Remote.addTransferFlags(cmd)
	opts.Remote.addUploadFlags(cmd)
	return cmd
}

func runPush(ctx context.Context, opts *pushOptions) error {
	getenv := opts.Getenv
	if opts.gitSource {
		getenv = func(string) string { return "" }
	}
	build, err := opts.Build.options(getenv)
	if err != nil {
		return err
	}
	signer, err := flagSigner(opts.IO, opts.Global, opts.Sign, opts.SignKey, "--key")
	if err != nil {
		return err
	}
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Push(ctx, env, workflow.PushOptions{
		Source: opts.Source, Destination: opts.Destination, Build: build, Against: opts.Against,
		PushDependencies: opts.PushDependencies, NoOverwrite: opts.NoOverwrite, AllowPlaceholders: opts.AllowPlaceholders, Signer: signer,
		DependencyPushed: func(d publish.Published) { printDependencyPushed(opts.IO, opts.Global, d) },
		Built:            func(built *pack.Result) { printBuildNotes(opts.IO, opts.Global, built) },
	})
	finish()
	if err != nil {
		return err
	}
	return printPushed(opts.IO, opts.Global, res)
}

// isGitSource reports whether src is a git source, read as push reads
// it, a directory first; one that does not parse is left for push to
// refuse.
func isGitSource(src string) bool {
	if dir, _ := source.IsDirectory(src); dir {
		return false
	}
	d, err := declaration.Parse(src, declaration.Where{})
	return err == nil && d.Kind == declaration.Git
}

// flagSigner loads the key of push or copy --sign before anything is
// sent, so that a wrong key or password sends nothing.
// keyFlag names the flag of the key.
func flagSigner(io *IOStreams, global *globalOptions, sign bool, key, keyFlag string) (signature.Signer, error) {
	switch {
	case sign && key == "":
		return nil, errdefs.Invalid(fmt.Errorf("--sign needs %s KEY, the private key to sign with", keyFlag))
	case !sign && key != "":
		return nil, errdefs.Invalid(fmt.Errorf("%s is the signing key of --sign: add --sign", keyFlag))
	case !sign:
		return nil, nil
	}
	return loadSigner(io, global, key)
}
