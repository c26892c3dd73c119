package registrytest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/opencontainers/go-digest"
)

// A Fault is a rule of the fault-injecting layer in front of the registry.
// It matches requests by method and path and takes the first of them (one
// by default; see Times); the others reach the registry untouched. Make one
// with Fail, FailAfterBody, ResetConn, CorruptBody, CorruptBlob,
// ResizeBody or Rewrite, or with the network faults ResetMidBody, Truncate, Stall, StallMidBody and Stream,
// or with Gate, which holds requests until enough are in flight at once,
// and install it with WithFaults or Registry.AddFaults.
//
// The method is matched exactly ("" matches any), and the path is a regular
// expression matched against the URL path ("" matches any), e.g.
// `^/v2/skills/demo/blobs/uploads/.+`. The constructors panic on a bad
// expression, as regexp.MustCompile does.
type Fault struct {
	kind       string
	method     string
	path       *regexp.Regexp
	query      *regexp.Regexp // nil matches any
	left       atomic.Int64   // uses left; negative: unlimited. Atomic: a test may call Times while a request is served
	hits       atomic.Int64
	status     int
	retryAfter string
	// reason replaces the reason phrase of a fail fault's status line.
	reason string
	// streamBytes is how much a Stream fault sends.
	streamBytes int64
	// at is the offset of the body byte a corrupt fault flips.
	at int64
	// delta is how many bytes a resize fault adds to a body (or, negative,
	// removes from its end).
	delta int
	// chunked makes a resize or rewrite fault send no Content-Length.
	chunked bool
	// edit is how a rewrite fault changes a response.
	edit RewriteFunc
	// gate is the state of a Gate fault.
	gate *gate
}

func newFault(kind, method, path string) *Fault {
	f := &Fault{kind: kind, method: method, path: regexp.MustCompile(path)}
	f.left.Store(1)
	return f
}

// Fail answers matching requests with status and a registry-style JSON
// error, without reading their bodies or passing them on.
func Fail(method, path string, status int) *Fault {
	f := newFault("fail", method, path)
	f.status = status
	return f
}

// FailAfterBody reads a matching request's whole body, then answers with
// status, as a registry that fails while storing an upload does. Requests
// records the bytes read, so a test can check that a client's retry sent
// the whole body again.
func FailAfterBody(method, path string, status int) *Fault {
	f := Fail(method, path, status)
	f.kind = "fail-after-body"
	return f
}

// ResetConn drops the connection of a matching request with a TCP reset,
// before answering: the client sees a network error.
func ResetConn(method, path string) *Fault {
	return newFault("reset", method, path)
}

// CorruptBody passes matching requests to the registry but flips the bits
// of the first byte of a successful response's body, keeping its length.
func CorruptBody(method, path string) *Fault {
	return newFault("corrupt", method, path)
}

// ResizeBody passes matching requests to the registry but makes a
// successful response's body delta bytes longer (zeros appended) or, with
// a negative delta, that many bytes shorter, with a Content-Length to
// match: a whole response, of another size than the one asked for.
func ResizeBody(method, path string, delta int) *Fault {
	f := newFault("resize", method, path)
	f.delta = delta
	return f
}

// A RewriteFunc edits the registry's response to req, with its status:
// it changes header in place and returns the body to send.
type RewriteFunc func(req *http.Request, status int, header http.Header, body []byte) []byte

// Rewrite passes matching requests to the registry and sends its
// responses as edit rewrites them: a hostile registry built on a real
// one, such as one whose Link header leads back to the page it serves.
func Rewrite(method, path string, edit RewriteFunc) *Fault {
	f := newFault("rewrite", method, path)
	f.edit = edit
	return f
}

// Chunked makes a ResizeBody or Rewrite fault send the body without a
// Content-Length (chunked), so that only its end tells its size. It
// returns f.
func (f *Fault) Chunked() *Fault {
	f.chunked = true
	return f
}

// CorruptBlob corrupts the body of GET requests for blob dgst of repository
// repo, so that a client must notice that its digest does not match.
func CorruptBlob(repo string, dgst digest.Digest) *Fault {
	return CorruptBody(http.MethodGet,
		"^/v2/"+regexp.QuoteMeta(repo)+"/blobs/"+regexp.QuoteMeta(dgst.String())+"$")
}

// AtByte makes a CorruptBody or CorruptBlob fault flip the body byte at
// offset n rather than the first, e.g. the last byte of a blob, which a
// client can only notice once it has read the rest. It returns f.
func (f *Fault) AtByte(n int64) *Fault {
	f.at = n
	return f
}

// Times makes f take the first n matching requests; n < 0 takes all of
// them. It returns f.
func (f *Fault) Times(n int) *Fault {
	f.left.Store(int64(n))
	return f
}

// RetryAfter adds a "Retry-After: seconds" header to the responses of a
// Fail or FailAfterBody fault. It returns f. (oras-go honours the header
// on 429 responses only.)
func (f *Fault) RetryAfter(seconds int) *Fault {
	f.retryAfter = strconv.Itoa(seconds)
	return f
}

// Reason makes a Fail or FailAfterBody fault send text as the reason
// phrase of its status line ("HTTP/1.1 503 text") instead of the standard
// one, and close the connection after the response. The reason phrase is
// the server's own text, which a client must not show as it comes. It
// returns f, and panics on a text that would end the line.
func (f *Fault) Reason(text string) *Fault {
	if strings.ContainsAny(text, "\r\n") {
		panic("registrytest: a reason phrase holds no line break")
	}
	f.reason = text
	return f
}

// WithQuery narrows f to requests whose raw query matches the regular
// expression expr, e.g. `mount=` for cross-repository mounts only.
func (f *Fault) WithQuery(expr string) *Fault {
	f.query = regexp.MustCompile(expr)
	return f
}

// Hits returns how many requests f has taken so far.
func (f *Fault) Hits() int { return int(f.hits.Load()) }

// take reports whether f claims req, and counts the use. The registry's lock
// is held, so no two takes race; a Fault belongs to one registry.
func (f *Fault) take(req *http.Request) bool {
	left := f.left.Load()
	if left == 0 || (f.method != "" && f.method != req.Method) || !f.path.MatchString(req.URL.Path) ||
		(f.query != nil && !f.query.MatchString(req.URL.RawQuery)) {
		return false
	}
	if left > 0 {
		f.left.Add(-1)
	}
	f.hits.Add(1)
	return true
}

// serve answers req, which f has claimed, using next for the real response
// where the fault needs one.
func (f *Fault) serve(w *recorder, req *http.Request, next http.Handler, quit <-chan struct{}) {
	if f.serveNet(w, req, next, quit) {
		return
	}
	if f.gate != nil {
		f.gate.serve(w, req, next, quit)
		return
	}
	switch f.kind {
	case "fail-after-body":
		_, _ = io.Copy(io.Discard, req.Body)
		fallthrough
	case "fail":
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		if f.reason != "" {
			writeRawError(w, req, f.status, f.reason)
			return
		}
		writeError(w, f.status)
	case "reset":
		resetConn(w)
	case "corrupt":
		next.ServeHTTP(&corrupter{recorder: w, at: f.at}, req)
	case "resize":
		resize(w, req, next, f.delta, f.chunked)
	case "rewrite":
		rewrite(w, req, next, f.chunked, f.edit)
	default:
		panic("registrytest: unknown fault kind " + f.kind)
	}
}

// writeError writes status with a body in the registry's error format.
func writeError(w http.ResponseWriter, status int) {
	code := "UNKNOWN"
	switch status {
	case http.StatusServiceUnavailable:
		code = "UNAVAILABLE"
	case http.StatusTooManyRequests:
		code = "TOOMANYREQUESTS"
	case http.StatusUnauthorized:
		code = "UNAUTHORIZED"
	case http.StatusNotFound:
		code = "NOT_FOUND"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"errors":[{"code":%q,"message":"registrytest: injected fault"}]}`+"\n", code)
}

// writeRawError writes what writeError does, with the headers set on w,
// under a status line of its own: net/http only sends the standard reason
// phrases, so it writes the response itself on the hijacked connection,
// and closes it.
func writeRawError(w *recorder, req *http.Request, status int, reason string) {
	errorBody := httptest.NewRecorder()
	writeError(errorBody, status)
	h := w.Header().Clone()
	for k, v := range errorBody.Header() {
		h[k] = v
	}
	size := errorBody.Body.Len()
	h.Set("Content-Length", strconv.Itoa(size))
	h.Set("Connection", "close")
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2 has no reason phrase
	}
	w.hijacked, w.status = true, status
	defer conn.Close()
	var out bytes.Buffer
	fmt.Fprintf(&out, "HTTP/1.1 %d %s\r\n", status, reason)
	_ = h.Write(&out)
	out.WriteString("\r\n")
	if req.Method != http.MethodHead {
		_, _ = errorBody.Body.WriteTo(&out)
		w.written = int64(size)
	}
	_, _ = buf.Write(out.Bytes())
	_ = buf.Flush()
}

// resetConn hijacks the connection under w and closes it with a TCP reset.
func resetConn(w *recorder) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (HTTP/2): abort the response instead.
		panic(http.ErrAbortHandler)
	}
	w.hijacked = true
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0) // close with RST rather than FIN
	}
	_ = conn.Close()
}

// resize lets next answer req and sends its response with delta bytes
// more or fewer in a 2xx body, chunked or with a Content-Length to match.
func resize(w *recorder, req *http.Request, next http.Handler, delta int, chunked bool) {
	rewrite(w, req, next, chunked, func(_ *http.Request, status int, _ http.Header, body []byte) []byte {
		switch {
		case status/100 != 2:
			return body
		case delta >= 0:
			return append(body, make([]byte, delta)...)
		}
		return body[:max(len(body)+delta, 0)]
	})
}

// rewrite lets next answer req and sends its response with the headers
// and body edit makes of it, chunked or with a Content-Length to match.
func rewrite(w *recorder, req *http.Request, next http.Handler, chunked bool, edit RewriteFunc) {
	full := httptest.NewRecorder()
	next.ServeHTTP(full, req)
	header := full.Header().Clone()
	body := edit(req, full.Code, header, full.Body.Bytes())
	for k, v := range header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if chunked {
		w.Header().Del("Content-Length")
	}
	w.WriteHeader(full.Code)
	if chunked {
		w.Flush() // sends the headers: the length is not known yet
	}
	if req.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// corrupter flips the body byte at offset at of a 2xx response.
type corrupter struct {
	*recorder
	at   int64
	done bool
}

func (c *corrupter) Write(p []byte) (int, error) {
	i := c.at - c.written
	if c.done || i < 0 || i >= int64(len(p)) || c.status/100 != 2 && c.status != 0 {
		return c.recorder.Write(p)
	}
	c.done = true
	q := append([]byte(nil), p...)
	q[i] ^= 0xff
	return c.recorder.Write(q)
}
