package registry_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

// syncBuffer is a buffer the transfers of one client may write to at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// With Trace set, every request to the registry and its token service,
// each retry included, is written out with its response status and
// headers, so that auth and proxy problems can be seen; credentials are
// never written: not the password, not the Basic header, not a token.
func TestTraceShowsRequestsWithoutCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const user, password = "ci-bot", "p@ss/w&rd<9>+x"
	reg := registrytest.New(t, registrytest.WithTokenAuth(user, password), registrytest.WithCredentialEcho())
	var trace syncBuffer
	c, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json"), Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	// A refused login, whose error bodies echo the credentials sent,
	// then a login and a push.
	if err := c.Login(ctx, reg.Host, auth.Credential{Username: user, Password: "wrong-" + password}); err == nil {
		t.Fatal("a wrong password was accepted")
	}
	if err := c.Login(ctx, reg.Host, auth.Credential{Username: user, Password: password}); err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Parse(reg.Host + "/team/skills:1")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := c.Repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	blob := []byte("traced")
	if err := c.Uploads(repo).Push(ctx, content.NewDescriptorFromBytes("application/octet-stream", blob), bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}

	got := trace.String()
	for _, want := range []string{
		"GET " + reg.URL + "/v2/\n",
		"401 Unauthorized\n",
		"Www-Authenticate: Bearer realm=",
		"Authorization: Basic ***\n",
		"Authorization: Bearer ***\n",
		"POST " + reg.URL + "/v2/team/skills/blobs/uploads/\n",
		"202 Accepted\n",
		"201 Created\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the trace has no %q:\n%s", want, got)
		}
	}
	tokens := reg.IssuedTokens()
	if len(tokens) == 0 {
		t.Fatal("no token was issued")
	}
	assertNoSecret(t, "the trace", got, user, append(tokens, password, "wrong-"+password)...)
}

// A trace shows the headers a registry sent escaped (termtext.Escape): a
// C1 control or a bidirectional override in one is the registry's text.
func TestTraceEscapesHeaders(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	backend, err := url.Parse(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(backend)
	proxy.ModifyResponse = func(resp *http.Response) error {
		resp.Header.Set("X-Evil", "csi\u009b2J bidi\u202e")
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	var trace syncBuffer
	c, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json"), Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Registry(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := trace.String()
	if !strings.Contains(got, `X-Evil: csi\u009b2J bidi\u202e`) || strings.ContainsAny(got, "\u009b\u202e") {
		t.Errorf("the trace does not show the header escaped:\n%q", got)
	}
}

// A trace names the proxy a request goes through, as the command sets
// the client up (with BeforeTLS): the proxy is half of what a trace is
// read for.
func TestTraceShowsProxy(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	// The registry is its own proxy: it serves a request in proxy form.
	proxyURL, err := url.Parse(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	var trace syncBuffer
	c, err := registry.New(registry.Options{
		RegistryConfig: filepath.Join(t.TempDir(), "config.json"),
		Transport:      &http.Transport{Proxy: http.ProxyURL(proxyURL)},
		Trace:          &trace,
		BeforeTLS:      func() {},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Registry(reg.Host)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := trace.String(), "> [1] via proxy "+reg.URL+"\n"; !strings.Contains(got, want) {
		t.Errorf("the trace has no %q:\n%s", want, got)
	}
}
