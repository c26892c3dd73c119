package registry

import (
	"encoding/base64"
	"strings"
	"testing"

	"oras.land/oras-go/v2/registry/remote/auth"
)

// An echo is redacted however it is encoded: JSON may escape "/" and "&",
// a form URL-encodes, and an Authorization header of credentials stax
// never sent is still recognised.
func TestRedactJSONEncodings(t *testing.T) {
	t.Parallel()
	const password = "p@ss/w&rd"
	basic := base64.StdEncoding.EncodeToString([]byte("me:" + password))
	var s secrets
	s.addCredential(auth.Credential{Username: "me", Password: password})
	r := s.replacer()
	for _, tt := range []struct{ body, want string }{
		{`{"errors":[{"code":"DENIED","message":"p@ss\/w\u0026rd"}]}`, `{"errors":[{"code":"DENIED","message":"***"}]}`},
		{`{"errors":[{"code":"DENIED","message":"form: password=p%40ss%2Fw%26rd&x=1"}]}`, `{"errors":[{"code":"DENIED","message":"form: password=***\u0026x=1"}]}`},
		{`{"errors":[{"code":"DENIED","detail":{"h":"` + basic + `"}}]}`, `{"errors":[{"code":"DENIED","detail":{"h":"***"}}]}`},
		{`{"errors":[{"code":"DENIED","message":"Authorization: Bearer someone-elses.token"}]}`, `{"errors":[{"code":"DENIED","message":"Authorization: Bearer ***"}]}`},
		{`{"errors":[{"code":"DENIED","detail":{"Authorization":"Bearer someone-elses.token"}}]}`, `{"errors":[{"code":"DENIED","detail":{"Authorization":"Bearer ***"}}]}`},
		{`<html>authorization: basic ` + basic + `</html>`, `<html>authorization: basic ***</html>`},
		// Words that only look like a scheme stay.
		{`{"errors":[{"code":"UNAUTHORIZED","message":"basic authentication required"}]}`, `{"errors":[{"code":"UNAUTHORIZED","message":"basic authentication required"}]}`},
	} {
		if got := string(redactJSON(r, []byte(tt.body))); got != tt.want {
			t.Errorf("redactJSON(%s)\n = %s\nwant %s", tt.body, got, tt.want)
		}
	}
}

// A Client remembers a bounded number of secrets, the latest sent.
func TestSecretsBounded(t *testing.T) {
	t.Parallel()
	var s secrets
	for i := range 3 * maxSecrets {
		s.add(strings.Repeat("x", i+1))
	}
	s.add(strings.Repeat("x", 1)) // sent again: remembered again
	if len(s.values) != maxSecrets || s.values[len(s.values)-1] != "x" {
		t.Errorf("%d secrets remembered, newest %q; want %d, the one sent last", len(s.values), s.values[len(s.values)-1], maxSecrets)
	}
}
