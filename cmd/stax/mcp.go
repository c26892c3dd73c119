package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/mcpserver"
	"github.com/stax-dev/stax/pkg/render"
)

type mcpOptions struct {
	IO     *IOStreams
	Global *globalOptions
	discoveryOptions
	HTTP        string
	Budget      int64
	BudgetBytes int64
	InlineLimit int
	Workspace   string
}

func newMCPCmd(f *factory, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	opts := &mcpOptions{IO: f.IO, Global: f.Global}
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

--http ADDR without a host (":8080") listens on the loopback interface.`,
		Example: `  stax mcp
  stax mcp --runtime codex --dir ~/src/app --budget 4000
  stax mcp --http :8080`,
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
	d, err := opts.resolve()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(opts.IO.ErrOut, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // stderr of an MCP server goes to the client's log, which has times
			}
			return a
		},
	}))
	srv, err := mcpserver.New(mcpserver.Options{
		Runtime: d.Runtime, Project: d.Project, Home: d.Home,
		Budget:      render.Budget{Tokens: opts.Budget, Bytes: opts.BudgetBytes},
		InlineLimit: opts.InlineLimit,
		Workspace:   opts.Workspace,
		Admit:       refuseUnverified,
		Version:     buildVersion(),
		Logger:      logger,
	})
	if err != nil {
		return errdefs.IO(err)
	}
	if opts.HTTP == "" {
		err = srv.Run(ctx, &mcpserver.StdioTransport{Reader: opts.IO.In, Writer: opts.IO.Out})
		return errdefs.IO(err)
	}
	addr, err := mcpserver.LoopbackAddr(opts.HTTP)
	if err != nil {
		return errdefs.Invalid(fmt.Errorf("--http: %w", err))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errdefs.IO(fmt.Errorf("--http: %w", err))
	}
	fmt.Fprintf(opts.IO.ErrOut, "serving the %s skills of %s over MCP at http://%s/\n", d.Runtime.Name, d.Project, ln.Addr())
	return errdefs.IO(srv.ServeHTTP(ctx, ln))
}
