package registry

import (
	"net/http"
	"strings"
)

// insufficientScope turns a 401 answered to a request that carried a
// bearer token, with error="insufficient_scope", into the 403 it means:
// the credentials were accepted but do not grant the access asked for
// (typically push). Left a 401, it would read as "not logged in".
type insufficientScope struct {
	next http.RoundTripper
}

func (t insufficientScope) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(req.Header.Get("Authorization"), "Bearer ") {
		return resp, err
	}
	for _, challenge := range resp.Header.Values("Www-Authenticate") {
		if strings.Contains(challenge, `error="insufficient_scope"`) {
			resp.StatusCode, resp.Status = http.StatusForbidden, "403 Forbidden"
			break
		}
	}
	return resp, nil
}
