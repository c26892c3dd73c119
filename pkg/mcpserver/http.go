package mcpserver

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stax-dev/stax/internal/loopback"
)

// maxTokenBytes bounds a bearer token; real ones are a few dozen bytes.
const maxTokenBytes = 4096

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry in
	// "Authorization: Bearer TOKEN"; see CheckToken.
	Token string
	// BodyTimeout bounds the time a request's body may take to arrive;
	// zero is DefaultBodyTimeout.
	BodyTimeout time.Duration
}

// DefaultBodyTimeout is how long a client has to send a request's headers,
// and then its body: an MCP message is a few kilobytes at most.
const DefaultBodyTimeout = 30 * time.Second

// ServeHTTP serves clients on ln with the streamable HTTP transport,
// watching the skill folders, until ctx ends.
//
// Every request passes two checks before it reaches the MCP handler. A
// request with more than one Origin header, or with one that is not a
// loopback origin
// (http or https on localhost, 127.0.0.0/8 or ::1) is refused with 403:
// browsers send Origin, so this stops any web page the user visits,
// including one that rebinds its DNS name to this machine, from driving
// the server, as the MCP transport specification requires. Clients that
// are not browsers send no Origin and pass. Then, when opts.Token is set,
// a request without that bearer token is refused with 401. The SDK
// handler adds its own check: on a loopback listener, a Host header that
// is not loopback is refused with 403 (and net/http refuses a request
// with more than one Host header with 400). A client that sends its
// headers or its body slower than opts.BodyTimeout is cut off, whether
// its request is refused or not.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	if opts.Token != "" {
		if err := CheckToken(opts.Token); err != nil {
			return err
		}
	}
	stop := s.watchInBackground(ctx)
	defer stop()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	timeout := cmp.Or(opts.BodyTimeout, DefaultBodyTimeout)
	srv := &http.Server{
		// The body's deadline comes first: net/http drains the body of a
		// refused request, up to 256 KiB, before it answers.
		Handler: bodyDeadline(guard(h, opts.Token), timeout),
		// A client that opens a connection and sends its headers slowly
		// must not hold the connection for ever. Server.ReadTimeout would
		// bound the body too, but it stays on the connection and cancels
		// the event streams the transport holds open once it passes:
		// bodyDeadline bounds each body instead.
		ReadHeaderTimeout: timeout,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
	// Closing on cancellation ends Serve; AfterFunc, unlike a goroutine
	// waiting on ctx, is released when Serve fails first.
	release := context.AfterFunc(ctx, func() { srv.Close() })
	defer release()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// guard refuses, before next sees them, requests from a foreign origin
// (403) and, when token is set, requests without it (401).
func guard(next http.Handler, token string) http.Handler {
	// The token is compared by its digest, in constant time, so that
	// neither its bytes nor its length can be learnt from response times.
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Header.Get reads the first of several Origin headers only: a
		// loopback one first would hide a foreign one after it.
		if origins := r.Header.Values("Origin"); len(origins) > 1 {
			http.Error(w, fmt.Sprintf("Forbidden: a request may carry one Origin header, not %d", len(origins)), http.StatusForbidden)
			return
		} else if len(origins) == 1 && !isLoopbackOrigin(origins[0]) {
			http.Error(w, fmt.Sprintf("Forbidden: this MCP server serves web pages of loopback origins only, not %q", origins[0]), http.StatusForbidden)
			return
		}
		if token != "" {
			got, ok := bearerToken(r.Header.Get("Authorization"))
			sum := sha256.Sum256([]byte(got))
			if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="stax mcp"`)
				http.Error(w, "Unauthorized: this MCP server needs its token in an \"Authorization: Bearer TOKEN\" header", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// bodyDeadline gives each request's body timeout to arrive in whole: a
// client that sends a byte now and then, which no idle timeout catches,
// is cut off (the read fails, and the handler answers 400). The deadline
// is lifted once the body is read, so that the response, an event stream
// that may stay open for long, is not cut.
func bodyDeadline(next http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body != nil && r.Body != http.NoBody {
			if err := rc.SetReadDeadline(time.Now().Add(timeout)); err == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline of its connection once read to
// its end.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// bearerToken is the token of an "Authorization: Bearer TOKEN" header; the
// scheme is case-insensitive (RFC 9110, section 11.1).
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// isLoopbackOrigin reports whether origin, the value of an Origin header,
// is an http or https origin on this machine's loopback interface. The
// host must be an IP literal or "localhost": a name that merely resolves
// to a loopback address is what a DNS rebinding attack uses.
func isLoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil ||
		u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	return loopback.Host(u.Hostname())
}

// CheckToken says what is wrong with a bearer token: it must be 1 to 4096
// visible ASCII characters, which an Authorization header carries as they
// are.
func CheckToken(token string) error {
	if token == "" {
		return errors.New("the token is empty")
	}
	if len(token) > maxTokenBytes {
		return fmt.Errorf("the token is %d bytes long, more than %d", len(token), maxTokenBytes)
	}
	for i := 0; i < len(token); i++ {
		if c := token[i]; c <= ' ' || c > '~' {
			// The character itself is not shown: it is part of a secret.
			return fmt.Errorf("the token has a character that is not visible ASCII at byte %d", i+1)
		}
	}
	return nil
}

// LoopbackAddr is addr with the loopback host where it names none, so that
// ":8080" serves this machine only.
func LoopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q is not HOST:PORT: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
