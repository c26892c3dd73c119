package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"oras.land/oras-go/v2/registry/remote/retry"
)

// Defaults of the network policy, documented in docs/registries.md.
const (
	// DefaultTimeout is how long a registry may stay silent: to accept a
	// connection, to start answering, or in the middle of a body.
	DefaultTimeout = 60 * time.Second
	// MaxRetryAfter caps the wait a registry may ask for with Retry-After.
	MaxRetryAfter = 60 * time.Second
	// maxAttempts bounds the tries of one request.
	maxAttempts = 6
	// maxReads bounds the reads of one body.
	maxReads = 4
)

// StallError is a registry that stopped answering for longer than the
// timeout.
type StallError struct {
	Host    string
	Op      string // e.g. `GET /v2/acme/skills/blobs/sha256:…`
	Timeout time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("%s sent nothing for %s during %s", e.Host, e.Timeout, e.Op)
}

// ReadError is a response body that could not be read whole, even after
// reading it again.
type ReadError struct {
	Host     string
	Op       string
	Attempts int
	Err      error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("%s, %d tries: %v", e.Op, e.Attempts, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// operation names a request in messages.
func operation(req *http.Request) string { return req.Method + " " + req.URL.Path }

// WaitFunc is told when a request waits longer than a moment before it is
// retried, and why.
type WaitFunc func(host string, wait time.Duration, reason string)

// Clock is the time a Client waits in: before a retry, and before it
// reads a body again. Tests give one that records the waits instead of
// sleeping through them.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx is done, and then returns ctx's error.
	Sleep(ctx context.Context, d time.Duration) error
}

// realClock is the time of the system.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// retrying sends a request again, after the wait its policy names, for as
// long as the policy says to; a request body is sent again through
// GetBody, and a request whose body cannot be is not retried. It does what
// oras-go's retry.Transport does, waiting on clock rather than on a timer
// of its own.
type retrying struct {
	next   http.RoundTripper
	policy retryPolicy
	clock  Clock
}

func (t retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		wait := t.policy.Retry(attempt, resp, err)
		if wait < 0 {
			return resp, err
		}
		if req.Body != nil {
			if req.GetBody == nil {
				return resp, err
			}
			body, berr := req.GetBody()
			if berr != nil {
				return resp, err
			}
			// The caller's request is its own: the retry is a copy.
			req = req.Clone(req.Context())
			req.Body = body
		}
		if err == nil {
			_ = resp.Body.Close()
		}
		if err := t.clock.Sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// retryPolicy retries what oras-go's default policy retries, and also
// connections closed under an upload and stalls; it honours Retry-After in
// both its forms, up to MaxRetryAfter.
type retryPolicy struct {
	onWait WaitFunc
	now    func() time.Time
}

// Retry returns how long to wait before retry attempt (from 0) of a
// request that ended in resp or err, or -1 not to retry it.
func (p retryPolicy) Retry(attempt int, resp *http.Response, err error) time.Duration {
	if attempt >= maxAttempts-1 {
		return -1
	}
	if !retryable(resp, err) {
		return -1
	}
	var stall *StallError
	if errors.As(err, &stall) && attempt >= 1 {
		return -1 // a registry that stalled twice will stall again
	}
	wait := retry.DefaultBackoff(attempt, nil)
	if ra, ok := retryAfter(resp, p.now()); ok {
		wait = ra
		if p.onWait != nil {
			p.onWait(resp.Request.URL.Host, wait, statusText(resp.StatusCode))
		}
	}
	return wait
}

func retryable(resp *http.Response, err error) bool {
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return false
		}
		var stall *StallError
		if errors.As(err, &stall) {
			return true
		}
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			return true
		}
		return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
			errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, net.ErrClosed) ||
			errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
	}
	switch {
	case resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusTooManyRequests:
		return true
	case resp.StatusCode == http.StatusNotImplemented, resp.StatusCode == http.StatusHTTPVersionNotSupported:
		return false
	}
	return resp.StatusCode >= 500
}

// retryAfter reads a 429 or 503 response's Retry-After, delay-seconds or
// an HTTP-date, capped at MaxRetryAfter.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter, true
		}
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(at.Sub(now), 0), MaxRetryAfter), true
}

// rereadingBodies reads a response body again when the connection breaks
// or stalls under it: from where it broke, with Range, when the registry
// serves ranges, else from the start, skipping what was read. The reader
// of the body verifies the digest over the whole. It also bounds how long
// a body may stay silent.
type rereadingBodies struct {
	next    http.RoundTripper
	timeout time.Duration
	clock   Clock
}

func (t rereadingBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || req.Header.Get("Range") != "" {
		if err == nil && t.timeout > 0 {
			resp.Body = newIdleBody(resp.Body, t.timeout, req)
		}
		return resp, err
	}
	resp.Body = &rereadingBody{transport: t, req: req, body: newIdleBody(resp.Body, t.timeout, req), size: resp.ContentLength, attempts: 1}
	return resp, nil
}

type rereadingBody struct {
	transport rereadingBodies
	req       *http.Request
	body      io.ReadCloser
	size      int64 // -1 when unknown
	read      int64
	attempts  int
}

func (b *rereadingBody) Read(p []byte) (int, error) {
	for {
		n, err := b.body.Read(p)
		b.read += int64(n)
		if err == nil || err == io.EOF || !retryable(nil, err) || b.req.Context().Err() != nil {
			return n, err
		}
		var stall *StallError
		if b.attempts >= maxReads || errors.As(err, &stall) && b.attempts >= 2 {
			return n, &ReadError{Host: b.req.URL.Host, Op: operation(b.req), Attempts: b.attempts, Err: err}
		}
		if rerr := b.reopen(); rerr != nil {
			if cerr := b.req.Context().Err(); cerr != nil {
				return n, cerr
			}
			return n, &ReadError{Host: b.req.URL.Host, Op: operation(b.req), Attempts: b.attempts, Err: errors.Join(err, rerr)}
		}
		if n > 0 {
			return n, nil
		}
	}
}

// reopen asks for the rest of the body, or for the whole of it again when
// the registry does not serve that range.
func (b *rereadingBody) reopen() error {
	_ = b.body.Close()
	b.attempts++
	if err := b.transport.clock.Sleep(b.req.Context(), retry.DefaultBackoff(b.attempts-2, nil)); err != nil {
		return err
	}
	if b.read > 0 {
		req := b.req.Clone(b.req.Context())
		// A closed range where the size is known: some registries serve
		// no open-ended one.
		if b.size > b.read {
			req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", b.read, b.size-1))
		} else {
			req.Header.Set("Range", fmt.Sprintf("bytes=%d-", b.read))
		}
		resp, err := b.transport.next.RoundTrip(req)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusPartialContent && strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", b.read)) {
			b.body = newIdleBody(resp.Body, b.transport.timeout, req)
			return nil
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
			return fmt.Errorf("read again: %s", statusText(resp.StatusCode))
		}
	}
	resp, err := b.transport.next.RoundTrip(b.req.Clone(b.req.Context()))
	if err != nil {
		return err
	}
	body := newIdleBody(resp.Body, b.transport.timeout, b.req)
	if resp.StatusCode != http.StatusOK {
		_ = body.Close()
		return fmt.Errorf("read again: %s", statusText(resp.StatusCode))
	}
	if _, err := io.CopyN(io.Discard, body, b.read); err != nil {
		_ = body.Close()
		return fmt.Errorf("read again: %w", err)
	}
	b.body = body
	return nil
}

func (b *rereadingBody) Close() error { return b.body.Close() }

// idleBody fails a read that waits longer than timeout for data, with a
// StallError, by closing the body under it. One timer serves every read.
type idleBody struct {
	body    io.ReadCloser
	timeout time.Duration
	req     *http.Request
	timer   *time.Timer

	mu      sync.Mutex
	stalled bool
}

func newIdleBody(body io.ReadCloser, timeout time.Duration, req *http.Request) io.ReadCloser {
	if timeout <= 0 {
		return body
	}
	b := &idleBody{body: body, timeout: timeout, req: req}
	b.timer = time.AfterFunc(time.Hour, b.stall)
	b.timer.Stop()
	return b
}

func (b *idleBody) stall() {
	b.mu.Lock()
	b.stalled = true
	b.mu.Unlock()
	_ = b.body.Close()
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.timer.Reset(b.timeout)
	n, err := b.body.Read(p)
	b.timer.Stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stalled && err != nil {
		return n, &StallError{Host: b.req.URL.Host, Op: operation(b.req), Timeout: b.timeout}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.body.Close()
}

// stallErrors turns the transport's own timeouts, waiting to connect or
// for an answer, into StallErrors naming the host and the request.
type stallErrors struct {
	next    http.RoundTripper
	timeout time.Duration
}

func (t stallErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	var netErr net.Error
	if err != nil && errors.As(err, &netErr) && netErr.Timeout() && req.Context().Err() == nil {
		return nil, &StallError{Host: req.URL.Host, Op: operation(req), Timeout: t.timeout}
	}
	return resp, err
}

// beforeTLS calls hook before a request that goes out over TLS (see
// Options.BeforeTLS): one to an https URL, or any through an HTTPS proxy.
type beforeTLS struct {
	next  http.RoundTripper
	hook  func()
	proxy func(*http.Request) (*url.URL, error)
}

func (t beforeTLS) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme == "https" || t.proxiedOverTLS(req) {
		t.hook()
	}
	return t.next.RoundTrip(req)
}

func (t beforeTLS) proxiedOverTLS(req *http.Request) bool {
	if t.proxy == nil {
		return false
	}
	proxy, err := t.proxy(req)
	return err == nil && proxy != nil && proxy.Scheme == "https"
}

// proxyOf is how the transport rt chooses the proxy of a request; nil
// when it is not an *http.Transport or uses none.
func proxyOf(rt http.RoundTripper) func(*http.Request) (*url.URL, error) {
	if t, ok := rt.(*http.Transport); ok {
		return t.Proxy
	}
	return nil
}
