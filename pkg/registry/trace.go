package registry

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stax-dev/stax/pkg/termtext"
)

// Auth and proxy problems show only in what goes over the wire: which
// host a request went to, through which proxy, which challenge came back.
// With Options.Trace a Client writes each request it sends (each retry
// too) and the status and headers of each response. Bodies are never
// written: a token endpoint's form carries the password, its answer the
// token. Headers that carry credentials are written as ***, and so is
// every secret the client has sent (see secrets) wherever it appears.

// tracing writes each request and response that passes through it to out.
type tracing struct {
	next    http.RoundTripper
	out     io.Writer
	secrets *secrets
	// proxy is the proxy the base transport sends a request through.
	proxy func(*http.Request) (*url.URL, error)
	// mu keeps the lines of one request or response together when
	// requests run at once; seq numbers requests so that a response can
	// be matched with its request.
	mu  *sync.Mutex
	seq *atomic.Int64
}

func newTracing(next http.RoundTripper, out io.Writer, sent *secrets) tracing {
	return tracing{next: next, out: out, secrets: sent, proxy: proxyOf(next), mu: &sync.Mutex{}, seq: &atomic.Int64{}}
}

func (t tracing) RoundTrip(req *http.Request) (*http.Response, error) {
	id := t.seq.Add(1)
	r := t.secrets.replacer()
	var b strings.Builder
	fmt.Fprintf(&b, "> [%d] %s %s\n", id, req.Method, termtext.Escape(traceURL(r, req.URL)))
	if t.proxy != nil {
		if proxy, err := t.proxy(req); err == nil && proxy != nil {
			fmt.Fprintf(&b, "> [%d] via proxy %s\n", id, termtext.Escape(traceURL(r, proxy)))
		}
	}
	writeHeaders(&b, fmt.Sprintf("> [%d] ", id), req.Header, r)
	t.write(b.String())

	resp, err := t.next.RoundTrip(req)
	b.Reset()
	if err != nil {
		fmt.Fprintf(&b, "< [%d] error: %s\n", id, termtext.Escape(redact(t.secrets.replacer(), err.Error())))
		t.write(b.String())
		return resp, err
	}
	fmt.Fprintf(&b, "< [%d] %s %s\n", id, resp.Proto, statusText(resp.StatusCode))
	writeHeaders(&b, fmt.Sprintf("< [%d] ", id), resp.Header, t.secrets.replacer())
	t.write(b.String())
	return resp, nil
}

func (t tracing) write(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = io.WriteString(t.out, s)
}

// writeHeaders writes h one header a line, in name order, with their
// credentials redacted and, as the server chose them, escaped.
func writeHeaders(b *strings.Builder, prefix string, h http.Header, r *strings.Replacer) {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range h[name] {
			fmt.Fprintf(b, "%s%s: %s\n", prefix, termtext.Escape(name), termtext.Escape(traceHeader(r, name, v)))
		}
	}
}

// traceHeader is the value of header name as a trace shows it: the
// scheme of an Authorization header without its credentials, no cookie,
// and no secret anywhere else.
func traceHeader(r *strings.Replacer, name, value string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization":
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " " + redacted
		}
		return redacted
	case "Cookie", "Set-Cookie":
		return redacted
	case "Location":
		// A redirect to storage carries the signature of its URL.
		if u, err := url.Parse(value); err == nil {
			return traceURL(r, u)
		}
	}
	return redact(r, value)
}

// traceURL is u as a trace shows it: without a password, without the
// values of query parameters that carry credentials (the signature of a
// pre-signed storage URL a blob read is redirected to, a token), and
// without any secret the client sent. The query keeps its order.
func traceURL(r *strings.Replacer, u *url.URL) string {
	shown := *u
	if shown.RawQuery != "" {
		params := strings.Split(shown.RawQuery, "&")
		for i, p := range params {
			key, _, ok := strings.Cut(p, "=")
			if name, err := url.QueryUnescape(key); ok && err == nil && credentialParameter(name) {
				params[i] = key + "=" + redacted
			}
		}
		shown.RawQuery = strings.Join(params, "&")
	}
	return redact(r, shown.Redacted())
}

// credentialParameter reports whether a query parameter of this name may
// carry a credential: the names S3, GCS and Azure sign URLs with, and
// OAuth2's.
func credentialParameter(name string) bool {
	name = strings.ToLower(name)
	if name == "sig" {
		return true
	}
	for _, part := range []string{"signature", "token", "credential", "secret", "password", "key"} {
		if strings.Contains(name, part) {
			return true
		}
	}
	return false
}
