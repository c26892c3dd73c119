package workflow

import (
	"context"
	"io"

	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/mcpserver"
	"github.com/stax-dev/stax/pkg/render"
)

// ServeMCPOptions say whose skills ServeMCP serves, and on which
// transport.
type ServeMCPOptions struct {
	// Discover is the runtime and the project and home directories it
	// runs in, whose skills are served as List finds them. Required.
	Discover discover.Options
	// Budget fits an invoked skill to a context budget; the zero Budget
	// is none.
	Budget render.Budget
	// InlineLimit is how many skills the Skill tool's description lists;
	// 0 is mcpserver.DefaultInlineLimit, negative no limit.
	InlineLimit int
	// Workspace is the value of ${STAX_WORKSPACE}; empty is the project
	// directory.
	Workspace string
	// Version is the server version reported to clients; empty is "dev".
	Version string
	// HTTP is the HOST:PORT of the streamable HTTP transport; empty
	// serves one client on Stdin and Stdout.
	HTTP string
	// Token is the bearer token every HTTP request must carry; empty
	// asks for none, and then only the loopback interface is served.
	Token string
	// Stdin and Stdout are the stdio transport's; unused with HTTP.
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr is told where the server listens and receives its log; nil
	// discards both.
	Stderr io.Writer
}

// ServeMCP serves the skills a runtime sees over the Model Context
// Protocol until ctx ends or the stdio client leaves. Each skill is
// admitted before it is served, as render and show admit it (see Admit),
// through env. A failure to listen is a *mcpserver.ListenError.
func ServeMCP(ctx context.Context, env *Env, opts ServeMCPOptions) error {
	d := opts.Discover
	return mcpserver.Serve(ctx, mcpserver.ServeOptions{
		Options: mcpserver.Options{
			Runtime: d.Runtime, Project: d.Project, Home: d.Home,
			Budget:      opts.Budget,
			InlineLimit: opts.InlineLimit,
			Workspace:   opts.Workspace,
			Admit:       func(ctx context.Context, skillDir string) error { return Admit(ctx, env, skillDir) },
			Installed: func(l *discover.Listing) (map[string]*mcpserver.Installed, []string) {
				return installedOf(l, d, env.getenv)
			},
			Version: opts.Version,
		},
		HTTP: opts.HTTP, Token: opts.Token, Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr,
	})
}
