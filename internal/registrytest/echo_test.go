package registrytest_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// readAll reads and closes resp's body.
func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func TestCredentialEcho(t *testing.T) {
	t.Parallel()
	basic := base64.StdEncoding.EncodeToString([]byte("alice:wrong"))

	t.Run("registry", func(t *testing.T) {
		t.Parallel()
		reg := registrytest.New(t, registrytest.WithBasicAuth("alice", "s3cret"), registrytest.WithCredentialEcho())
		req, _ := http.NewRequest(http.MethodGet, reg.URL+"/v2/", nil)
		req.SetBasicAuth("alice", "wrong")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Authorization: Basic "+basic) ||
			!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("%s %q %s; want 401 with the challenge, echoing the credentials", resp.Status, resp.Header.Get("WWW-Authenticate"), body)
		}
		// Successes pass untouched.
		roundTrip(t, repository(t, reg, "alice", "s3cret"), []byte("echo"))
	})

	t.Run("token service", func(t *testing.T) {
		t.Parallel()
		reg := registrytest.New(t, registrytest.WithTokenAuth("bob", "t0ken"), registrytest.WithCredentialEcho())
		challenge := readAllHeader(t, reg.URL+"/v2/")
		realm := between(challenge, `realm="`, `"`)
		form := url.Values{"grant_type": {"password"}, "username": {"bob"}, "password": {"p@ss/w&rd"}}
		resp, err := http.Post(realm, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "p%40ss%2Fw") {
			t.Errorf("%s %s; want 401 echoing the form", resp.Status, body)
		}

		if len(reg.IssuedTokens()) != 0 {
			t.Fatalf("tokens issued before any was asked for")
		}
		roundTrip(t, repository(t, reg, "bob", "t0ken"), []byte("echo"))
		if len(reg.IssuedTokens()) == 0 {
			t.Error("IssuedTokens is empty after a push and a pull with tokens")
		}
	})
}

func readAllHeader(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, resp)
	return resp.Header.Get("WWW-Authenticate")
}

func between(s, start, end string) string {
	_, s, _ = strings.Cut(s, start)
	s, _, _ = strings.Cut(s, end)
	return s
}
