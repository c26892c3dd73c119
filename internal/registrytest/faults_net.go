package registrytest

import (
	"bytes"
	"io"

	"net/http"
	"net/http/httptest"
	"strconv"
	"time"
)

// The faults of a bad network and a hostile server. Those that cut a body
// short let the registry answer first, keep its response, and send only its
// first half: the client sees the status and headers it expects, then the
// body breaks.

// ResetMidBody breaks the connection of a matching request with a TCP reset
// halfway through a body: the request's, when it has one (an upload), else
// the response's.
func ResetMidBody(method, path string) *Fault {
	return newFault("reset-mid-body", method, path)
}

// Truncate sends the first half of a matching request's response, with the
// registry's headers (Content-Length included), then closes the connection.
func Truncate(method, path string) *Fault {
	return newFault("truncate", method, path)
}

// Stall accepts a matching request and never answers, until the client
// gives up or the registry stops.
func Stall(method, path string) *Fault {
	return newFault("stall", method, path)
}

// StallMidBody sends the registry's headers and the first half of its
// response body, then sends nothing more until the client gives up or the
// registry stops.
func StallMidBody(method, path string) *Fault {
	return newFault("stall-mid-body", method, path)
}

// Stream answers a matching request with 200 and n bytes of zeros, without
// a Content-Length, as a hostile server streaming a blob without end would.
// Request.ResponseBytes tells how many the client let it send.
func Stream(method, path string, n int64) *Fault {
	f := newFault("stream", method, path)
	f.streamBytes = n
	return f
}

// RetryAfterTime adds a "Retry-After: HTTP-date" header naming t to the
// responses of a Fail or FailAfterBody fault. It returns f.
func (f *Fault) RetryAfterTime(t time.Time) *Fault {
	f.retryAfter = t.UTC().Format(http.TimeFormat)
	return f
}

// serveNet serves the faults of this file; it reports false for others.
func (f *Fault) serveNet(w *recorder, req *http.Request, next http.Handler, quit <-chan struct{}) bool {
	switch f.kind {
	case "reset-mid-body":
		if req.ContentLength > 0 || req.ContentLength == -1 && req.Body != http.NoBody {
			_, _ = io.CopyN(io.Discard, req.Body, max(req.ContentLength/2, 1))
			resetConn(w)
			return true
		}
		sendHalf(w, req, next)
		resetConn(w)
	case "truncate":
		sendHalf(w, req, next)
		// The server closes the connection of a handler that aborts.
		panic(http.ErrAbortHandler)
	case "stall":
		stall(req, quit)
	case "stall-mid-body":
		sendHalf(w, req, next)
		stall(req, quit)
	case "stream":
		w.WriteHeader(http.StatusOK) // no Content-Length: chunked
		chunk := make([]byte, 32<<10)
		for left := f.streamBytes; left > 0; {
			n := int64(len(chunk))
			if left < n {
				n = left
			}
			if _, err := w.Write(chunk[:n]); err != nil {
				return true
			}
			left -= n
		}
	default:
		return false
	}
	return true
}

// sendHalf lets next answer req, then sends its status, its headers and
// the first half of its body, flushed.
func sendHalf(w *recorder, req *http.Request, next http.Handler) {
	full := httptest.NewRecorder()
	next.ServeHTTP(full, req)
	for k, v := range full.Header() {
		w.Header()[k] = v
	}
	body := full.Body.Bytes()
	if w.Header().Get("Content-Length") == "" {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(full.Code)
	_, _ = io.Copy(w, bytes.NewReader(body[:len(body)/2]))
	w.Flush()
}

func stall(req *http.Request, quit <-chan struct{}) {
	select {
	case <-req.Context().Done():
	case <-quit:
	}
}
