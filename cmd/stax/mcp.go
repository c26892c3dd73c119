package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/internal/regularfile"
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
}

func newMCPCmd(f *factory, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	opts := &mcpOptions{IO: f.IO, Global: f.Global, Env: f.Env, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "mcp [--runtime NAME] [--dir PROJECT] [--http ADDR]",
		Short: "Serve the installed skills to any agent over MCP",
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
  STAX_MCP_TOKEN=$(openssl rand -hex 32) stax mcp --http 0.0.0.0:8080`,
		Args: cobra.NoArgs,
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
	return cmd
}

func runMCP(ctx context.Context, opts *mcpOptions) error {
	if opts.Budget < 0 || opts.BudgetBytes < 0 || opts.InlineLimit < 1 {
		return errdefs.Invalid(errors.New("--budget and --budget-bytes must not be negative, and --inline-limit must be at least 1"))
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
		Version:     buildVersion(),
		HTTP:        opts.HTTP, Token: token, Stdin: opts.IO.In, Stdout: opts.IO.Out, Stderr: opts.IO.ErrOut,
	})
	return httpFlagError(err)
}

// httpFlagError says what is wrong with --http in the words of the flags.
func httpFlagError(err error) error {
	var listen *mcpserver.ListenError
	switch {
	case !errors.As(err, &listen):
		return err
	case errors.Is(listen.Err, mcpserver.ErrNoToken):
		return errdefs.Invalid(fmt.Errorf("--http %s listens beyond this machine, where anyone who reaches %s could read the skills: "+
			"set a token in $%s or --token-file, or listen on 127.0.0.1", listen.Addr, listen.Listening, mcpTokenEnv))
	}
	return errdefs.With(errdefs.Of(err), fmt.Errorf("--http: %w", listen.Err))
}

// token is the bearer token of --http: the content of --token-file, or
// $STAX_MCP_TOKEN, without surrounding white space; "" for none, and for
// stdio, which has no use for one.
func (opts *mcpOptions) token() (string, error) {
	env := opts.Getenv(mcpTokenEnv)
	if opts.HTTP == "" && opts.TokenFile == "" {
		return "", nil
	}
	if opts.TokenFile == "" {
		if env == "" {
			return "", nil
		}
		token := strings.TrimSpace(env)
		if err := mcpserver.CheckToken(token); err != nil {
			return "", errdefs.Invalid(fmt.Errorf("$%s: %w", mcpTokenEnv, err))
		}
		return token, nil
	}
	if opts.HTTP == "" {
		return "", errdefs.Invalid(errors.New("--token-file is for --http: the stdio transport has no tokens"))
	}
	if env != "" {
		return "", errdefs.Invalid(fmt.Errorf("both $%s and --token-file are set: unset one", mcpTokenEnv))
	}
	data, err := regularfile.ReadFile(opts.TokenFile, maxTokenFileBytes)
	if errors.Is(err, regularfile.ErrTooLarge) {
		return "", fmt.Errorf("--token-file: %w; the file holds the token alone", err)
	}
	if err != nil {
		return "", errdefs.MarkLocal(fmt.Errorf("--token-file: %w", err))
	}
	token := strings.TrimSpace(string(data))
	if err := mcpserver.CheckToken(token); err != nil {
		return "", errdefs.Invalid(fmt.Errorf("--token-file %s: %w", opts.TokenFile, err))
	}
	return token, nil
}

// maxTokenFileBytes bounds what --token-file reads: a token and the white
// space around it.
const maxTokenFileBytes = 8 << 10
