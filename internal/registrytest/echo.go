package registrytest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
)

// WithCredentialEcho makes the registry and its token service answer
// every error with a body that echoes what the request authenticated
// with: its Authorization header (whole, and its credentials alone), its
// query and, for a form (the token service's OAuth2 grants), its body.
// Some registries and proxies do this in their error pages; a client must
// never show those bodies as they come. Errors injected by faults are not
// echoed.
func WithCredentialEcho() Option {
	return func(o *options) { o.echo = true }
}

// maxEchoedForm bounds the form body echoCredentials keeps to echo.
const maxEchoedForm = 64 << 10

// echoCredentials serves next, replacing the body of each error it
// answers with a registry-style JSON error that echoes the request's
// credentials, in the message and in the detail.
func echoCredentials(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var form []byte
		if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt == "application/x-www-form-urlencoded" {
			form, _ = io.ReadAll(io.LimitReader(req.Body, maxEchoedForm))
			req.Body = io.NopCloser(bytes.NewReader(form))
		}
		next.ServeHTTP(&echoWriter{ResponseWriter: w, req: req, form: form}, req)
	})
}

// echoWriter passes a response through unless its status is an error,
// whose body it replaces with the echo.
type echoWriter struct {
	http.ResponseWriter
	req      *http.Request
	form     []byte
	wrote    bool
	replaced bool
}

func (w *echoWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if code < http.StatusBadRequest {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.replaced = true
	authorization := w.req.Header.Get("Authorization")
	_, credentials, _ := strings.Cut(authorization, " ")
	body, _ := json.Marshal(map[string]any{"errors": []map[string]any{{
		"code":    "UNAUTHORIZED",
		"message": "registrytest: request had Authorization: " + authorization,
		"detail": map[string]string{
			"authorization": authorization,
			// As a log line would show them, with no header name that
			// would give them away.
			"credentials": credentials,
			"query":       w.req.URL.RawQuery,
			"form":        string(w.form),
		},
	}}})
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	w.ResponseWriter.WriteHeader(code)
	_, _ = w.ResponseWriter.Write(body)
}

func (w *echoWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush lets the registry flush through the echo.
func (w *echoWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *echoWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
