package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// A password with the characters URL and JSON encodings change.
const echoUser, echoPassword = "ci-bot", "p@ss/w&rd<9>+x"

// assertNoCredential fails t if r's output holds any of secrets as sent,
// URL- or JSON-encoded, or in the Basic header of echoUser.
func assertNoCredential(t *testing.T, r result, secrets ...string) {
	t.Helper()
	out := r.Stdout + r.Stderr
	for _, s := range secrets {
		quoted, _ := json.Marshal(s)
		for _, form := range []string{s, url.QueryEscape(s), string(quoted[1 : len(quoted)-1]),
			base64.StdEncoding.EncodeToString([]byte(echoUser + ":" + s))} {
			if strings.Contains(out, form) {
				// Not the secret: the failure would print it too.
				t.Errorf("exit %d: the output shows a credential", r.Code)
				return
			}
		}
	}
	if !strings.Contains(out, "***") {
		t.Errorf("exit %d: the output does not show the registry's echo, redacted:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// savedCredentials writes a Docker config holding user and password for
// host, as a login before the password changed would have.
func savedCredentials(t *testing.T, host, user, password string) string {
	t.Helper()
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"auths":{"`+host+`":{"auth":"`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A registry, or its token endpoint, that echoes the credentials it was
// sent into its errors: login, push and the token exchange fail as before,
// saying what the registry said, without the password, the Basic header
// or the bearer token.
func TestRegistryErrorsNeverShowCredentials(t *testing.T) {
	t.Parallel()
	for _, auth := range []struct {
		name string
		opt  func(user, password string) registrytest.Option
	}{
		{"basic", registrytest.WithBasicAuth},
		{"token", registrytest.WithTokenAuth},
	} {
		t.Run("login/"+auth.name, func(t *testing.T) {
			reg := registrytest.New(t, auth.opt(echoUser, "right"), registrytest.WithCredentialEcho())
			useHome(t)
			config := filepath.Join(t.TempDir(), "config.json")
			for _, output := range []string{"text", "json"} {
				r := runStaxWith(t, &IOStreams{In: strings.NewReader(echoPassword + "\n")},
					"login", reg.Host, "-u", echoUser, "--password-stdin", "--registry-config", config, "--output", output)
				if r.Code != 3 || !strings.Contains(r.Stdout+r.Stderr, "did not accept the credentials for "+echoUser) {
					t.Errorf("--output %s: exit %d %s%s; want 3, the credentials refused", output, r.Code, r.Stdout, r.Stderr)
				}
				assertNoCredential(t, r, echoPassword)
			}
		})
		t.Run("push 401/"+auth.name, func(t *testing.T) {
			reg := registrytest.New(t, auth.opt(echoUser, "right"), registrytest.WithCredentialEcho())
			useHome(t)
			config := savedCredentials(t, reg.Host, echoUser, echoPassword)
			for _, output := range []string{"text", "json"} {
				r := runStax(t, "push", examples, reg.Host+"/acme/skills:1.0.0", "--registry-config", config, "--output", output)
				if r.Code != 3 || !strings.Contains(r.Stdout+r.Stderr, "stax login "+reg.Host) {
					t.Errorf("--output %s: exit %d %s%s; want 3, a hint to log in", output, r.Code, r.Stdout, r.Stderr)
				}
				assertNoCredential(t, r, echoPassword)
			}
		})
	}
	t.Run("push 403/token", func(t *testing.T) {
		reg := registrytest.New(t, registrytest.WithTokenAuth(echoUser, echoPassword), registrytest.WithPullOnlyTokens(), registrytest.WithCredentialEcho())
		useHome(t)
		config := savedCredentials(t, reg.Host, echoUser, echoPassword)
		for _, output := range []string{"text", "json"} {
			r := runStax(t, "push", examples, reg.Host+"/acme/skills:1.0.0", "--registry-config", config, "--output", output)
			if r.Code != 3 || !strings.Contains(r.Stdout+r.Stderr, "lack push access") {
				t.Errorf("--output %s: exit %d %s%s; want 3, no push access", output, r.Code, r.Stdout, r.Stderr)
			}
			tokens := reg.IssuedTokens()
			if len(tokens) == 0 {
				t.Fatal("no token was issued: the push did not get as far as the registry")
			}
			assertNoCredential(t, r, append(tokens, echoPassword)...)
		}
	})
}

// A registry whose status line's reason phrase echoes the password it was
// sent: the message about the wait it asks for says the status in
// standard words, and the pull succeeds.
func TestPullWaitMessageShowsNoCredential(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t, registrytest.WithBasicAuth(echoUser, echoPassword))
	useHome(t)
	config := savedCredentials(t, reg.Host, echoUser, echoPassword)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0", "--registry-config", config)
	fault := registrytest.Fail(http.MethodGet, "/manifests/", http.StatusTooManyRequests).RetryAfter(0).Reason("Slow down, " + echoPassword)
	reg.AddFaults(fault)
	useHome(t)
	r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "skills"), "--registry-config", config)
	if r.Code != 0 || fault.Hits() != 1 {
		t.Fatalf("exit %d, fault hits %d: %s", r.Code, fault.Hits(), r.Stderr)
	}
	if !strings.Contains(r.Stderr, reg.Host+" asks to wait 0s before retrying (429 Too Many Requests)") {
		t.Errorf("no message about the wait, in standard words: %s", r.Stderr)
	}
	if strings.Contains(r.Stdout+r.Stderr, echoPassword) {
		t.Error("the output shows the password") // not the output: it holds the password
	}
}

// A password that is also a word of the registry's URLs: the blob
// redirect and the token realm that hold it are followed as sent, and
// the pull succeeds.
func TestPullFollowsRedirectAndRealmHoldingThePassword(t *testing.T) {
	t.Parallel()
	const password = "storage"
	reg := registrytest.New(t, registrytest.WithTokenAuth(echoUser, password),
		registrytest.WithTokenRealm("/"+password+"/token"), registrytest.WithBlobRedirect(password))
	useHome(t)
	config := savedCredentials(t, reg.Host, echoUser, password)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0", "--registry-config", config)
	useHome(t)
	r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "skills"), "--registry-config", config)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	redirected := 0
	for _, req := range reg.Requests() {
		if strings.HasPrefix(req.Path, "/"+password+"/v2/") {
			redirected++
		}
	}
	if redirected == 0 {
		t.Error("no blob was fetched through the redirect")
	}
}
