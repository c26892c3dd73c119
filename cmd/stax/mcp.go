package main

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/mcpserver"
	"github.com/stax-dev/stax/pkg/render"
	"github.com/stax-dev/stax/pkg/workflow"
)

// mcpTokenEnv holds the bearer token of `stax mcp --http`. The token is
// read from the environment or a file, never from a flag, so that it does
// not show in ps or in the shell's history.
const mcpTokenEnv = "STAX_MCP_TOKEN"

type mcpOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	Getenv func(string) string
	discoveryOptions
	HTTP        string
	TokenFile   string
	Budget      int64
	BudgetBytes int64
	InlineLimit int
	Workspace   string
	Packages    []string
	File        string
	Refresh     time.Duration
	Verify      verifyFlags
}

func newMCPCmd(f *factory, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	opts := &mcpOptions{IO: f.IO, Global: f.Global, Env: f.Env, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "mcp [--runtime NAME] [--dir PROJECT] [--http ADDR] [--package REF]... [--file stax.yaml [--refresh INTERVAL]]",
		Short: "Serve the installed skills, or a package's, to any agent over MCP",
		Long: `Run a Model Context Protocol server, on stdin/stdout or with --http on the
streamable HTTP transport, that gives an MCP client the skills the runtime
would load from the project and the user's home, as stax list shows them:

  Skill       its description lists every skill as "- name: description";
              called with {"name": ..., "arguments": ...} it returns what
              stax render returns: the SKILL.md body, CALIBRATION.md,
              EXAMPLES.md, then MEMORY.md most recent first, with
              $ARGUMENTS, $ARGUMENTS[N], ${STAX_SKILL_DIR} and
              ${STAX_WORKSPACE} substituted, fitted to --budget. A skill
              whose SKILL.md body and CALIBRATION.md alone exceed the budget
              is refused with the reason, never sent in part.
  ListSkills  every skill, or those matching a query, and the skills that
              cannot load with file, line and reason. When more than
              --inline-limit skills are found, the Skill tool lists the
              first ones and points the model here for the rest.

Every file of every skill is a resource, skill://NAME/PATH. Skills that
cannot load are also sent as warning log notifications. When skills are
installed, edited or removed, the server sends tools/list_changed.

Hosts that load skills themselves use the MCP skills extension
(io.modelcontextprotocol/skills, with directoryRead): skills/list and
skills/get give each skill's frontmatter and every file with its SHA-256
and size, which hosts verify what they read against, and, for a skill stax
installed, its package, version, digest and signer in
_meta["dev.stax/provenance"]. A skill whose files differ from its
package's is said so there, or refused when the trust policy requires the
package to verify.

With --package REF (repeatable: a registry reference, an oci: layout, a
package directory or a git source; later ones win a skill's directory, as
in an install)
or --file stax.yaml (its install.sources), the server serves those
packages' skills instead, and installs nothing: the packages are resolved,
checked against the trust policy as an install checks them, kept in the
local store, and each one's skills extracted once, read-only, into
$STAX_HOME/served/<digest>. Their provenance names the package and the
signer that verified it. --refresh INTERVAL resolves them again at that
interval: when a tag or a version range names another package, clients
are sent resources/list_changed and see the new skills.

--http ADDR without a host (":8080") listens on the loopback interface.
Requests from a web page whose origin is not loopback are refused (403),
so that no site the browser visits can reach the server. With a token, in
$STAX_MCP_TOKEN or the file --token-file names, every request must carry
"Authorization: Bearer TOKEN" (else 401). Listening beyond the loopback
interface (--http 0.0.0.0:8080) needs a token, and is plain HTTP: put a
TLS proxy in front of it to cross a network.

On stdin/stdout, a line that is not a JSON-RPC 2.0 message is answered
with a JSON-RPC error and the server reads on.`,
		Example: `  stax mcp
  stax mcp --runtime codex --dir ~/src/app --budget 4000
  stax mcp --http :8080
  stax mcp --package ghcr.io/acme/skills:1.4.0
  stax mcp --file stax.yaml --refresh 10m
  STAX_MCP_TOKEN=$(openssl rand -hex 32) stax mcp --http 0.0.0.0:8080`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{serverAnnotation: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCP(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd)
	flags := cmd.Flags()
	flags.StringVar(&opts.HTTP, "http", "", "serve the streamable HTTP transport at ADDR (HOST:PORT) instead of stdio")
	flags.StringVar(&opts.TokenFile, "token-file", "", "with --http, the file holding the bearer token clients must send (default: $"+mcpTokenEnv+")")
	flags.Int64Var(&opts.Budget, "budget", 0, "context budget of an invoked skill in tokens (estimated as bytes/4, rounded up); 0 for none")
	flags.Int64Var(&opts.BudgetBytes, "budget-bytes", 0, "context budget of an invoked skill in bytes; 0 for none")
	flags.IntVar(&opts.InlineLimit, "inline-limit", mcpserver.DefaultInlineLimit, "most skills the Skill tool's description lists; the rest are found with ListSkills")
	flags.StringVar(&opts.Workspace, "workspace", "", "value of ${STAX_WORKSPACE} (default: the project directory)")
	flags.StringArrayVar(&opts.Packages, "package", nil, "serve this package's skills instead of the installed ones, installing nothing (repeatable; later ones win)")
	flags.StringVar(&opts.File, "file", "", "serve the install.sources of this stax.yaml instead of the installed skills, installing nothing")
	flags.DurationVar(&opts.Refresh, "refresh", 0, "with --package or --file, resolve them again at this interval (e.g. 10m) and serve what they name then")
	opts.Verify.addFlags(cmd)
	return cmd
}

func runMCP(ctx context.Context, opts *mcpOptions) error {
	if opts.Budget < 0 || opts.BudgetBytes < 0 || opts.InlineLimit < 1 {
		return errdefs.Invalid(errors.New("--budget and --budget-bytes must not be negative, and --inline-limit must be at least 1"))
	}
	if err := opts.checkPackages(); err != nil {
		return err
	}
	token, err := opts.token()
	if err != nil {
		return err
	}
	d, err := opts.resolve()
	if err != nil {
		return err
	}
	env, _, err := opts.Env(nil) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	err = workflow.ServeMCP(ctx, env, workflow.ServeMCPOptions{
		Discover:    d,
		Budget:      render.Budget{Tokens: opts.Budget, Bytes: opts.BudgetBytes},
		InlineLimit: opts.InlineLimit,
		Workspace:   opts.Workspace,
		Packages:    opts.Packages, File: opts.File, Refresh: opts.Refresh, Verify: opts.Verify.verification(),
		Version: buildVersion(),
		HTTP:    opts.HTTP, Token: token, Stdin: opts.IO.In, Stdout: opts.IO.Out, Stderr: opts.IO.ErrOut,
	})
	return httpFlagError(err)
}

// checkPackages reports --package, --file and --refresh that contradict
// each other before anything is fetched.
func (opts *mcpOptions) checkPackages() error {
	switch {
	case len(opts.Packages) > 0 && opts.File != "":
		return errdefs.Invalid(errors.New("--package and --file both say what to serve: pass one"))
	case opts.Refresh < 0:
		return errdefs.Invalid(errors.New("--refresh must not be negative"))
	case opts.Refresh > 0 && len(opts.Packages) == 0 && opts.File == "":
		return errdefs.Invalid(errors.New("--refresh resolves --package or --file again: pass one of them, or drop --refresh (installed skills are watched)"))
	}
	return nil
}
