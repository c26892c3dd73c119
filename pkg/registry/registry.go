// Package registry opens remote OCI repositories with the conventions OCI
// users expect: Docker credential stores, bearer and basic auth, plain HTTP
// for loopback hosts, retries that really resend uploads, and errors that
// say what to do.
package registry

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/stax-dev/stax/internal/loopback"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
)

// DockerHubHost is where Docker Hub's registry API is served; docker.io
// is only its name.
const DockerHubHost = "registry-1.docker.io"

// Options configure access to registries.
type Options struct {
	// PlainHTTP, when set, says whether to use HTTP instead of HTTPS; nil
	// means HTTP for loopback hosts, which are almost never served over
	// TLS, and HTTPS for the rest, as with docker and oras.
	PlainHTTP *bool
	// Insecure skips TLS certificate verification.
	Insecure bool
	// CAFile adds the PEM certificates in this file to the trusted roots.
	CAFile string
	// RegistryConfig is the Docker config file holding credentials; empty
	// means $DOCKER_CONFIG/config.json, else ~/.docker/config.json.
	RegistryConfig string
	// UserAgent is sent with every request.
	UserAgent string
	// Transport is the innermost round tripper; nil means a clone of
	// http.DefaultTransport. Tests put instrumentation here.
	Transport http.RoundTripper
	// Timeout is how long a registry may stay silent — to accept a
	// connection, to start answering, in the middle of a body — before the
	// request fails (and is retried once); 0 means DefaultTimeout,
	// negative no limit.
	Timeout time.Duration
	// ChunkSize, when positive, makes blob uploads PATCH chunks of at most
	// this many bytes; 0 uploads each blob in one request.
	ChunkSize int64
	// TagListPageSize, when positive, is how many tags one request of a
	// tag list asks for (?n=); 0 lets the registry choose its page size.
	// Either way the pages are followed to the end.
	TagListPageSize int
	// OnWait, when set, is told when a registry asks to wait before a
	// retry (Retry-After), so that the user knows why nothing happens.
	OnWait WaitFunc
	// Trace, when set, receives a line for each request sent to a
	// registry or token endpoint (each retry too) and for its response:
	// method, URL and proxy, status, and headers, with credentials
	// redacted; never a body.
	Trace io.Writer
	// Clock times the waits before a retry and before a body is read
	// again; nil means real time.
	Clock Clock
	// BeforeTLS, when set, is called before each request that goes out
	// over TLS (to the registry, or through an HTTPS proxy), and before
	// the system's roots are read for CAFile: a binary sets up the roots
	// TLS trusts there on first use rather than at every start (see
	// cmd/stax's trustFallbackRoots). It is called from many goroutines.
	BeforeTLS func()
}

// Client talks to registries for one command: every repository it opens
// shares one HTTP client and one auth cache, so a token is fetched once.
type Client struct {
	opts  Options
	creds credentials.Store
	http  *auth.Client
	// secrets are the credentials sent so far, which no error shows.
	secrets *secrets
}

// New builds a Client from opts.
func New(opts Options) (*Client, error) {
	inner, err := baseTransport(opts)
	if err != nil {
		return nil, err
	}
	base := inner
	creds, err := credentialStore(opts.RegistryConfig)
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	switch {
	case timeout == 0:
		timeout = DefaultTimeout
	case timeout < 0:
		timeout = 0
	}
	clock := opts.Clock
	if clock == nil {
		clock = realClock{}
	}
	sent := &secrets{}
	if opts.Trace != nil {
		// Below the retries, so that each attempt is traced.
		base = newTracing(base, opts.Trace, sent)
	}
	if opts.BeforeTLS != nil {
		// Above the tracing, which reads the proxy from the transport
		// below it.
		base = beforeTLS{next: base, hook: opts.BeforeTLS, proxy: proxyOf(inner)}
	}
	retries := retrying{
		next:   stallErrors{next: base, timeout: timeout},
		policy: retryPolicy{onWait: opts.OnWait, now: clock.Now},
		clock:  clock,
	}
	// Every request, to a registry or to its token endpoint, goes through
	// redactingResponses, so that no answer carries a secret to a message.
	transport := redactingResponses{secrets: sent, next: insufficientScope{next: rewindableBodies{next: rereadingBodies{next: retries, timeout: timeout, clock: clock}}}}
	client := &auth.Client{
		Client:     &http.Client{Transport: transport},
		Cache:      auth.NewCache(),
		Credential: recordingCredentials(sent, credentialFunc(creds)),
		Header:     http.Header{},
	}
	if opts.UserAgent != "" {
		client.SetUserAgent(opts.UserAgent)
	}
	return &Client{opts: opts, creds: creds, http: client, secrets: sent}, nil
}

// maxCAFileSize bounds a --ca-file: a system's whole bundle of
// certificates is a few hundred kilobytes.
const maxCAFileSize = 4 << 20

func baseTransport(opts Options) (http.RoundTripper, error) {
	if opts.Transport != nil {
		return opts.Transport, nil
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	if opts.Timeout >= 0 {
		timeout := cmp.Or(opts.Timeout, DefaultTimeout)
		t.DialContext = (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext
		t.ResponseHeaderTimeout = timeout
	}
	if !opts.Insecure && opts.CAFile == "" {
		return t, nil
	}
	cfg := &tls.Config{InsecureSkipVerify: opts.Insecure} //nolint:gosec // the user asked for --insecure
	if opts.CAFile != "" {
		pem, err := regularfile.ReadFile(opts.CAFile, maxCAFileSize)
		if err != nil {
			return nil, errdefs.MarkLocal(fmt.Errorf("read --ca-file: %w", err))
		}
		if opts.BeforeTLS != nil {
			opts.BeforeTLS()
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errdefs.Invalid(fmt.Errorf("--ca-file %s holds no PEM certificate", opts.CAFile))
		}
		cfg.RootCAs = pool
	}
	t.TLSClientConfig = cfg
	return t, nil
}

func credentialStore(path string) (credentials.Store, error) {
	opts := credentials.StoreOptions{AllowPlaintextPut: true}
	var (
		store *credentials.DynamicStore
		err   error
	)
	if path != "" {
		store, err = credentials.NewStore(path, opts)
	} else {
		store, err = credentials.NewStoreFromDocker(opts)
	}
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("load registry credentials: %w", err))
	}
	return store, nil
}

// dockerHubKey is the key Docker, oras and crane keep Docker Hub's
// credentials under, whichever of its names the user logged in with.
const dockerHubKey = "https://index.docker.io/v1/"

// isDockerHub reports whether host is one of Docker Hub's names.
func isDockerHub(host string) bool {
	switch host {
	case "docker.io", "index.docker.io", DockerHubHost:
		return true
	}
	return false
}

// CredentialKey is the key of host's credentials in a Docker credential
// store (config file, credsStore or credHelpers).
func CredentialKey(host string) string {
	if isDockerHub(host) {
		return dockerHubKey
	}
	return host
}

// apiHost is the host serving the registry API of host.
func apiHost(host string) string {
	if isDockerHub(host) {
		return DockerHubHost
	}
	return host
}

// credentialFunc looks up the credentials of the host a request goes to
// under the key they were saved with.
func credentialFunc(store credentials.Store) auth.CredentialFunc {
	return func(ctx context.Context, hostport string) (auth.Credential, error) {
		return store.Get(ctx, CredentialKey(hostport))
	}
}

// Repository opens the repository ref names.
func (c *Client) Repository(ref reference.Reference) (*remote.Repository, error) {
	if ref.IsLayout() {
		return nil, errdefs.Invalid(fmt.Errorf("%s is an OCI layout, not a registry reference", ref))
	}
	host := apiHost(ref.Registry)
	repo, err := remote.NewRepository(host + "/" + ref.Repository)
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s: %w", ref, err))
	}
	repo.Client = tagPages{next: c.http}
	repo.PlainHTTP = c.plainHTTP(host)
	// Where referrers are kept under the tag schema, adding one replaces
	// the referrers index; deleting the old one is housekeeping that GHCR
	// and registries with deletes disabled refuse (405), and that would
	// fail a copy that has already succeeded. The old index stays,
	// untagged, for the registry's own garbage collection.
	repo.SkipReferrersGC = true
	repo.TagListPageSize = c.opts.TagListPageSize
	return repo, nil
}

// Registry opens the registry at host, for login.
func (c *Client) Registry(host string) (*remote.Registry, error) {
	host = apiHost(host)
	reg, err := remote.NewRegistry(host)
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("registry %q: %w", host, err))
	}
	reg.Client = c.http
	reg.PlainHTTP = c.plainHTTP(host)
	return reg, nil
}

func (c *Client) plainHTTP(hostport string) bool {
	if c.opts.PlainHTTP != nil {
		return *c.opts.PlainHTTP
	}
	return IsLoopback(hostport)
}

// IsLoopback reports whether hostport names localhost (in any case, as
// DNS reads names), 127.0.0.0/8 or ::1.
func IsLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return loopback.Host(strings.Trim(host, "[]"))
}
