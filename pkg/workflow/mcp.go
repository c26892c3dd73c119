package workflow

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/stax-dev/stax/layers"

	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/errdefs"
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
	// Packages, when set, are served in place of the runtime's folders,
	// and nothing is installed: registry references, oci: layouts or
	// package directories, later ones winning, resolved with what they
	// depend on, admitted by the trust policy as Verify overrides it,
	// stored in the local store, and each package's skills extracted
	// once under $STAX_HOME, where the server reads them.
	Packages []string
	// File, when set, serves the install.sources of that stax.yaml as
	// Packages are served.
	File string
	// Refresh, with Packages or File, resolves them again at this
	// interval, and the server serves what they then name; 0 never does.
	Refresh time.Duration
	// After is time.After, which a test replaces to drive Refresh.
	After  func(time.Duration) <-chan time.Time
	Verify Verification
	// Limits bound each package served; the zero value is the defaults.
	Limits layers.Limits
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
	sopts := mcpserver.Options{
		Runtime: d.Runtime, Project: d.Project, Home: d.Home,
		Budget:      opts.Budget,
		InlineLimit: opts.InlineLimit,
		Workspace:   opts.Workspace,
		Admit:       func(ctx context.Context, skillDir string) error { return Admit(ctx, env, skillDir) },
		Installed: func(l *discover.Listing) (map[string]*mcpserver.Installed, []string) {
			return installedOf(l, d, env.getenv)
		},
		Version: opts.Version,
	}
	served := len(opts.Packages) > 0 || opts.File != ""
	var ready func() error
	if v := opts.Verify; !served && (v.Mode != "" || len(v.Keys) > 0 || len(v.Identities) > 0 || v.TrustedRoot != "") {
		// The installed skills are held to the trust policy and the lock:
		// a check asked for here would do nothing, and pass for one done.
		return errdefs.Invalid(errors.New("--verify, --key, --certificate-identity, --certificate-oidc-issuer and --trusted-root check the packages of --package or --file: " +
			"pass one, or drop them (stax verify --installed checks the installed skills)"))
	}
	if served {
		if err := env.checkVerification(opts.Verify); err != nil {
			return err
		}
		p := &servedPackages{env: env, opts: opts}
		set, stored, err := p.load(ctx)
		if err != nil {
			return err
		}
		p.set, ready = set, stored
		sopts.Folders, sopts.Installed, sopts.Written = p.folders, p.installedOf, p.takeWritten
		// What a package holds was checked as it was admitted: a skill
		// of its own is not admitted again, from a project's lock.
		sopts.Admit = nil
		if opts.Refresh > 0 {
			sopts.Poll = p.poll
		}
	}
	return mcpserver.Serve(ctx, mcpserver.ServeOptions{
		Options: sopts, Ready: ready,
		HTTP: opts.HTTP, Token: opts.Token, Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr,
	})
}
