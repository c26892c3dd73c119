// Package registrytest runs a real OCI registry for tests.
//
// New starts CNCF distribution v3 (the code behind the "registry" image)
// in-process, served over plain HTTP on a loopback port; WithReferrersAPI
// starts go-containerregistry's registry instead, which serves the OCI 1.1
// referrers API that distribution lacks. Every request is
// recorded, and a small fault-injecting layer in front of the registry can
// fail, reset or corrupt chosen requests (see Fault). The registry itself is
// never faked: requests that no fault claims are served by distribution.
//
//	reg := registrytest.New(t, registrytest.WithBasicAuth("alice", "s3cret"))
//	repo, _ := remote.NewRepository(reg.Host + "/skills/demo")
//	repo.PlainHTTP = true
package registrytest

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	"github.com/sirupsen/logrus"
	"golang.org/x/crypto/bcrypt"

	// Registered by name with distribution's factories.
	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/auth/token"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
)

// Registry is a running registry. Its fields are read-only.
type Registry struct {
	// Host is the registry's address, "127.0.0.1:PORT". References such as
	// Host+"/repo:tag" name it; being loopback, clients use plain HTTP.
	Host string
	// URL is "http://" + Host, or "https://" with WithTLS.
	URL string
	// CACert is the PEM certificate a client must trust, with WithTLS.
	CACert []byte

	srv *httptest.Server
	// backend serves the requests no fault claims: app, or
	// go-containerregistry's registry.
	backend http.Handler
	app     *handlers.App
	token   *tokenServer
	// root is the storage directory of WithFilesystem, or empty.
	root string

	mu       sync.Mutex
	requests []Request
	// generation counts ResetRequests calls, so that a request served
	// across one does not update a record that is no longer its own.
	generation int
	faults     []*Fault
	// serving counts the requests being served; idle is signalled, with
	// mu, when it drops to zero.
	serving int
	idle    *sync.Cond

	// quit is closed when the registry stops, releasing stalled requests.
	quit chan struct{}

	closeOnce sync.Once
	stopOnce  sync.Once
}

// Request is one request the registry saw, as recorded by Requests.
type Request struct {
	Method string
	Path   string // URL path, e.g. "/v2/skills/demo/blobs/uploads/"
	Query  string // raw query, e.g. "digest=sha256:..."
	// Status is the status code sent, or 0 when the connection was reset.
	Status int
	// BodyBytes is how many request body bytes the server read.
	BodyBytes int64
	// ResponseBytes is how many response body bytes the server wrote.
	ResponseBytes int64
	// Fault names the fault injected into this request ("fail",
	// "fail-after-body", "reset", "corrupt", "resize", "rewrite", "reset-mid-body", "truncate",
	// "stall", "stall-mid-body", "stream" or "gate"), or is empty.
	Fault string
	// AuthScheme is the scheme of the request's Authorization header
	// ("Basic", "Bearer"), or empty when it had none. The credentials
	// themselves are not recorded.
	AuthScheme string
}

// Option configures New.
type Option func(*options)

type options struct {
	referrers  bool
	noDelete   bool
	filesystem bool
	tls        bool
	auth       string // "", "basic" or "token"
	user, pass string
	pullOnly   bool
	echo       bool
	faults     []*Fault
	// blobRedirect is the path prefix blob GETs are redirected under.
	blobRedirect string
	// tokenPath is where the token service answers.
	tokenPath string
}

// WithBasicAuth makes the registry require HTTP Basic credentials, checked
// by distribution's htpasswd access controller. It replaces WithTokenAuth.
func WithBasicAuth(user, password string) Option {
	return func(o *options) { o.auth, o.user, o.pass = "basic", user, password }
}

// WithTokenAuth makes the registry require bearer tokens, as Docker Hub and
// most hosted registries do. A token service on another loopback port
// issues them: it checks Basic credentials against user and password and
// grants whatever access it is asked for. It replaces WithBasicAuth.
func WithTokenAuth(user, password string) Option {
	return func(o *options) { o.auth, o.user, o.pass = "token", user, password }
}

// WithPullOnlyTokens makes the token service of WithTokenAuth grant only
// pull access, whatever a client asks for, as a registry does to a user
// who may read a repository but not write it.
func WithPullOnlyTokens() Option {
	return func(o *options) { o.pullOnly = true }
}

// WithFilesystem stores content on disk, in a directory under t.TempDir(),
// instead of in memory.
func WithFilesystem() Option {
	return func(o *options) { o.filesystem = true }
}

// WithTLS serves the registry over HTTPS with a certificate of its own
// (for 127.0.0.1), whose PEM Registry.CACert holds. Clients must be told to
// use HTTPS, since loopback registries are HTTP by convention.
func WithTLS() Option {
	return func(o *options) { o.tls = true }
}

// WithReferrersAPI serves the registry with go-containerregistry's
// pkg/registry, which implements the OCI 1.1 referrers API
// (GET /v2/NAME/referrers/DIGEST), instead of distribution v3, whose clients
// fall back to the referrers tag schema. It keeps content in memory and
// cannot be combined with WithBasicAuth, WithTokenAuth, WithFilesystem or
// WithoutDelete.
func WithReferrersAPI() Option {
	return func(o *options) { o.referrers = true }
}

// WithoutDelete configures distribution with deletes disabled, so that it
// answers DELETE with 405 as GHCR and many hosted registries do.
func WithoutDelete() Option {
	return func(o *options) { o.noDelete = true }
}

// WithFaults installs faults in front of the registry from the start; see
// also Registry.AddFaults.
func WithFaults(faults ...*Fault) Option {
	return func(o *options) { o.faults = append(o.faults, faults...) }
}

var quietOnce sync.Once

// New starts a registry, which t.Cleanup closes. It fails t if the registry
// cannot start.
func New(t testing.TB, opts ...Option) *Registry {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	quietOnce.Do(func() {
		if !testing.Verbose() {
			logrus.SetOutput(io.Discard)
		}
	})

	r := &Registry{faults: o.faults, quit: make(chan struct{})}
	r.idle = sync.NewCond(&r.mu)
	var err error
	if o.referrers {
		if o.auth != "" || o.filesystem || o.noDelete {
			t.Fatalf("registrytest: WithReferrersAPI cannot be combined with auth or filesystem storage")
		}
		r.backend = ggcrregistry.New(ggcrregistry.WithReferrersSupport(true), ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	} else {
		cfg, err := r.config(t, &o)
		if err != nil {
			r.Close()
			t.Fatalf("registrytest: %v", err)
		}
		r.app, err = newApp(cfg)
		if err != nil {
			r.Close()
			t.Fatalf("registrytest: %v", err)
		}
		r.backend = r.app
	}
	if o.echo {
		r.backend = echoCredentials(r.backend)
	}
	if o.blobRedirect != "" {
		r.backend = redirectBlobs(o.blobRedirect, r.backend)
	}
	r.srv, err = startLoopback(http.HandlerFunc(r.serve), o.tls)
	if err != nil {
		r.Close()
		t.Fatalf("registrytest: %v", err)
	}
	r.Host = r.srv.Listener.Addr().String()
	r.URL = r.srv.URL
	if o.tls {
		r.CACert = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw})
	}
	t.Cleanup(r.Close)
	return r
}

// config builds distribution's configuration for o. It starts the token
// service when o asks for token auth.
func (r *Registry) config(t testing.TB, o *options) (*configuration.Configuration, error) {
	cfg := &configuration.Configuration{}
	cfg.HTTP.Secret = "registrytest" // a fixed secret avoids a warning
	// What distribution's parsed configuration defaults to: built in
	// code, it would be 0, and /v2/_catalog would list nothing.
	cfg.Catalog.MaxEntries = 1000
	cfg.Storage = configuration.Storage{
		"inmemory": configuration.Parameters{},
		"delete":   configuration.Parameters{"enabled": true},
		// The purger would only run after its first interval (hours), but
		// it would still hold a goroutine on the storage of a closed test.
		"maintenance": configuration.Parameters{
			"uploadpurging": map[any]any{"enabled": false},
		},
	}
	if o.noDelete {
		cfg.Storage["delete"] = configuration.Parameters{"enabled": false}
	}
	if o.filesystem {
		delete(cfg.Storage, "inmemory")
		r.root = t.TempDir()
		cfg.Storage["filesystem"] = configuration.Parameters{"rootdirectory": r.root}
	}

	switch o.auth {
	case "basic":
		path := filepath.Join(t.TempDir(), "htpasswd")
		if err := writeHtpasswd(path, o.user, o.pass); err != nil {
			return nil, err
		}
		cfg.Auth = configuration.Auth{"htpasswd": configuration.Parameters{
			"realm": "registrytest",
			"path":  path,
		}}
	case "token":
		ts, err := startTokenServer(t.TempDir(), o.tokenPath, o.user, o.pass, o.echo)
		if err != nil {
			return nil, err
		}
		ts.pullOnly = o.pullOnly
		r.token = ts
		cfg.Auth = configuration.Auth{"token": ts.params()}
	}
	return cfg, nil
}

// writeHtpasswd writes an htpasswd file with one bcrypt entry. The hash uses
// the minimum cost: the registry checks it on every request.
func writeHtpasswd(path, user, password string) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		return fmt.Errorf("hashing the password: %w", err)
	}
	if err := os.WriteFile(path, fmt.Appendf(nil, "%s:%s\n", user, hash), 0o600); err != nil {
		return fmt.Errorf("writing htpasswd: %w", err)
	}
	return nil
}

// newApp creates distribution's handler, turning its panics on a bad
// configuration into an error.
func newApp(cfg *configuration.Configuration) (app *handlers.App, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("starting distribution: %v", p)
		}
	}()
	return handlers.NewApp(context.Background(), cfg), nil
}

// startLoopback serves h on a fresh port of 127.0.0.1, over TLS if asked.
func startLoopback(h http.Handler, tls bool) (*httptest.Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on loopback: %w", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	return srv, nil
}

// serve records each request and hands it to the first fault that claims
// it, or else to the registry. The record is made before the request is
// served: a client may see the response, or a reset, and look at Requests
// before the handler returns.
func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	body := &countingReader{r: req.Body}
	req.Body = body
	rec := &recorder{ResponseWriter: w}

	f := r.claim(req)
	kind := ""
	if f != nil {
		kind = f.kind
	}
	r.mu.Lock()
	i, gen := len(r.requests), r.generation
	scheme, _, _ := strings.Cut(req.Header.Get("Authorization"), " ")
	r.requests = append(r.requests, Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Fault: kind, AuthScheme: scheme})
	r.serving++
	r.mu.Unlock()
	// Deferred: a fault may end the handler with a panic.
	defer r.served()

	if f == nil {
		r.backend.ServeHTTP(rec, req)
	} else {
		f.serve(rec, req, r.backend, r.quit)
	}
	if rec.status == 0 && !rec.hijacked {
		rec.status = http.StatusOK
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen == r.generation { // else ResetRequests dropped the record
		r.requests[i].Status, r.requests[i].BodyBytes, r.requests[i].ResponseBytes = rec.status, body.n, rec.written
	}
}

// served ends the serving of a request.
func (r *Registry) served() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.serving--
	if r.serving == 0 {
		r.idle.Broadcast()
	}
}

// WaitIdle waits until the registry serves no request. A client may see
// the end of a response before its handler has returned; once WaitIdle
// returns, every request it made is recorded whole (see Requests).
func (r *Registry) WaitIdle() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.serving > 0 {
		r.idle.Wait()
	}
}

// IssuedTokens returns the bearer tokens the token service of
// WithTokenAuth has issued so far, oldest first, for tests that check a
// client never shows them.
func (r *Registry) IssuedTokens() []string {
	if r.token == nil {
		return nil
	}
	r.token.mu.Lock()
	defer r.token.mu.Unlock()
	return slices.Clone(r.token.issued)
}

// AddFaults installs more faults. Faults are tried in the order installed;
// the first that matches a request and has uses left claims it.
func (r *Registry) AddFaults(faults ...*Fault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, faults...)
}

// claim returns the fault that takes req, using one of its uses, or nil.
func (r *Registry) claim(req *http.Request) *Fault {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.faults {
		if f.take(req) {
			return f
		}
	}
	return nil
}

// Requests returns the requests served so far, oldest first. A request is
// recorded when it arrives, and its Status and byte counts are filled in
// when its handler returns; a client sees the end of a response after
// that, unless a fault flushed part of it or broke the connection: then
// WaitIdle first.
func (r *Registry) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// ResetRequests forgets the requests recorded so far.
func (r *Registry) ResetRequests() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = nil
	r.generation++
}

var uploadPath = regexp.MustCompile(`^/v2/.+/blobs/uploads/`)

// CountBlobUploads counts the recorded requests of blob uploads: the POST
// that starts one, and the PATCH and PUT that send data, whatever their
// status. A client that skips blobs the registry has makes none.
func (r *Registry) CountBlobUploads() int {
	n := 0
	for _, req := range r.Requests() {
		switch req.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			if uploadPath.MatchString(req.Path) {
				n++
			}
		}
	}
	return n
}

// Stop closes the registry's server and its connections, as a registry that
// goes away mid-test would: later requests fail to connect. Content stays.
func (r *Registry) Stop() {
	r.stopOnce.Do(func() {
		close(r.quit)
		if r.srv != nil {
			r.srv.CloseClientConnections()
			r.srv.Close()
		}
	})
}

// Close stops the registry and its token service and frees its storage.
// t.Cleanup calls it; calling it again does nothing.
func (r *Registry) Close() {
	r.closeOnce.Do(func() {
		r.Stop()
		if r.token != nil {
			r.token.srv.Close()
		}
		if r.app != nil {
			_ = r.app.Shutdown() // only a proxy cache can fail to shut down
		}
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReadCloser
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

// recorder remembers the status written through it.
type recorder struct {
	http.ResponseWriter
	status   int
	hijacked bool
	written  int64
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.written += int64(n)
	return n, err
}

// Flush lets distribution flush through the recorder.
func (w *recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// KeepOnLoopback makes every HTTP request of the test binary that is not
// to a loopback address fail at once: Go never proxies loopback hosts, so
// with a proxy on a closed loopback port any other request fails without
// even a DNS lookup, instead of leaving the machine. Call it from TestMain
// before the first request, as net/http reads the variables once.
func KeepOnLoopback() {
	for _, v := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		os.Setenv(v, "http://127.0.0.1:9")
	}
	os.Unsetenv("NO_PROXY")
	os.Unsetenv("no_proxy")
}
