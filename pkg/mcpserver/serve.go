package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// ServeOptions say how Serve builds its server and where it serves.
type ServeOptions struct {
	// Options build the server. A nil Logger logs to Stderr.
	Options
	// Ready, when set, is what the server waits for once built, before it
	// serves, and its error Serve's: work on what is served that goes on
	// as the server is built. Nil waits for nothing.
	Ready func() error
	// HTTP is the address, HOST:PORT, of the streamable HTTP transport
	// (see Listen); empty serves one client on Stdin and Stdout.
	HTTP string
	// Token is the bearer token every HTTP request must carry (see
	// HTTPOptions); empty asks for none, and only on the loopback
	// interface.
	Token string
	// Stdin and Stdout are the stdio transport's; unused with HTTP.
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr is told where the server listens, and receives its log when
	// Logger is nil; nil discards both.
	Stderr io.Writer
}

// ErrNoToken refuses to serve beyond this machine without a token: anyone
// who reaches the address could read the skills.
var ErrNoToken = errors.New("no token")

// ListenError is a failure to listen at the HTTP address.
type ListenError struct {
	// Addr is the address as given.
	Addr string
	// Listening is the address listened at, when the listener was refused
	// because it reaches beyond this machine without a token.
	Listening net.Addr
	// Err is what failed: the address, the listener, or ErrNoToken.
	Err error
}

func (e *ListenError) Error() string { return e.Addr + ": " + e.Err.Error() }
func (e *ListenError) Unwrap() error { return e.Err }

// Serve builds a server of the skills opts.Options describe and serves it,
// on stdio or over HTTP, until the client goes (stdio) or ctx ends. An
// address the server cannot listen at is a *ListenError.
func Serve(ctx context.Context, opts ServeOptions) error {
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{} // the stderr of an MCP server goes to the client's log, which has times
				}
				return a
			},
		}))
	}
	srv, err := New(opts.Options)
	if opts.Ready != nil {
		// Waited for even when New failed: what it waits for may have
		// failed first, and caused that.
		if rerr := opts.Ready(); rerr != nil {
			return rerr
		}
	}
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	if opts.HTTP == "" {
		return errdefs.MarkLocal(srv.Run(ctx, &StdioTransport{Reader: opts.Stdin, Writer: opts.Stdout}))
	}
	ln, err := listen(opts.HTTP, opts.Token, stderr)
	if err != nil {
		return err
	}
	auth := ""
	if opts.Token != "" {
		auth = ", for clients with the token"
	}
	what := fmt.Sprintf("the %s skills of %s", opts.Runtime.Name, opts.Project)
	if opts.Folders != nil {
		what = "the skills of the packages"
	}
	fmt.Fprintf(stderr, "serving %s over MCP at http://%s/%s\n", what, ln.Addr(), auth)
	return errdefs.MarkLocal(srv.ServeHTTP(ctx, ln, HTTPOptions{Token: opts.Token}))
}

// listen listens at addr, on the loopback interface when addr names no
// host (see LoopbackAddr). Beyond it, a listener is refused without a
// token, and with one warnings are told that the traffic is plain HTTP.
func listen(addr, token string, warnings io.Writer) (net.Listener, error) {
	at, err := LoopbackAddr(addr)
	if err != nil {
		return nil, errdefs.Invalid(&ListenError{Addr: addr, Err: err})
	}
	ln, err := net.Listen("tcp", at)
	if err != nil {
		return nil, errdefs.MarkLocal(&ListenError{Addr: addr, Err: err})
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		if token == "" {
			ln.Close()
			return nil, errdefs.Invalid(&ListenError{Addr: addr, Listening: ln.Addr(), Err: ErrNoToken})
		}
		fmt.Fprintf(warnings, "warning: listening on %s, beyond this machine, over plain HTTP: the token and the skills cross the network unencrypted; "+
			"put a TLS proxy in front, or listen on 127.0.0.1\n", ln.Addr())
	}
	return ln, nil
}
