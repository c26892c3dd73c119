package registrytest

import (
	"net/http"
	"regexp"
	"strings"
)

// WithBlobRedirect makes the registry answer each blob GET with a 307
// redirect to the same path under /prefix, where it then serves the blob,
// as registries that keep blobs in separate storage (S3, GCS, a CDN) do.
// A test names the prefix to put a word of its choosing in the Location a
// client must follow as it is.
func WithBlobRedirect(prefix string) Option {
	return func(o *options) { o.blobRedirect = "/" + strings.Trim(prefix, "/") }
}

// WithTokenRealm makes the token service of WithTokenAuth answer at path
// (e.g. "/auth/token") instead of "/token": the realm a registry's 401
// names, which a client must follow as it is.
func WithTokenRealm(path string) Option {
	return func(o *options) { o.tokenPath = "/" + strings.TrimLeft(path, "/") }
}

var blobGet = regexp.MustCompile(`^/v2/.+/blobs/[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$`)

// redirectBlobs serves next, redirecting blob GETs under prefix and
// serving what is under prefix as next serves it without the prefix.
func redirectBlobs(prefix string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if rest, ok := strings.CutPrefix(req.URL.Path, prefix+"/"); ok {
			req.URL.Path, req.URL.RawPath = "/"+rest, ""
			next.ServeHTTP(w, req)
			return
		}
		if req.Method == http.MethodGet && blobGet.MatchString(req.URL.Path) {
			http.Redirect(w, req, prefix+req.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		next.ServeHTTP(w, req)
	})
}
