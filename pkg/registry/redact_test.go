package registry_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

// A password with the characters that URL and JSON encodings change, so
// that an echo in either form is caught.
const echoUser, echoPassword = "ci-bot", "p@ss/w&rd<9>+x"

// secretForms lists how each secret may appear in an echo: as sent, in
// the Basic header of user and the secret, and URL- and JSON-encoded.
func secretForms(user string, secrets ...string) []string {
	var forms []string
	for _, s := range secrets {
		j, _ := json.Marshal(s)
		forms = append(forms, s, url.QueryEscape(s), url.PathEscape(s), string(j[1:len(j)-1]),
			base64.StdEncoding.EncodeToString([]byte(user+":"+s)))
	}
	return forms
}

// assertNoSecret fails t if text holds any form of secrets (it does not
// print the secret found: the failure would show it).
func assertNoSecret(t *testing.T, what, text string, user string, secrets ...string) {
	t.Helper()
	for i, form := range secretForms(user, secrets...) {
		if form != "" && strings.Contains(text, form) {
			t.Errorf("%s shows a credential (form %d of %d):\n%s", what, i%5+1, 5, text)
		}
	}
}

// writeConfig writes a Docker config holding entry for host.
func writeConfig(t *testing.T, host string, entry map[string]string) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"auths": map[string]any{host: entry}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func basicEntry(user, password string) map[string]string {
	return map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(user + ":" + password))}
}

// pushBlob pushes a small blob to repository team/skills of host as a
// client reading config does, and returns the error as Explain words it.
func pushBlob(t *testing.T, host, config string) error {
	t.Helper()
	c, err := registry.New(registry.Options{RegistryConfig: config})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Parse(host + "/team/skills:1")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := c.Repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	blob := []byte("echo check")
	err = c.Uploads(repo).Push(context.Background(), content.NewDescriptorFromBytes("application/octet-stream", blob), bytes.NewReader(blob))
	return registry.Explain(err, host, ref.String())
}

// A registry, or its token service, that echoes the credentials it was
// sent into its error bodies never has them shown: the errors stax builds
// from those bodies say *** instead.
func TestErrorsNeverShowCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		run  func(t *testing.T) (err error, user string, secrets []string)
	}{
		{"login with a wrong password, basic", func(t *testing.T) (error, string, []string) {
			reg := registrytest.New(t, registrytest.WithBasicAuth(echoUser, "right"), registrytest.WithCredentialEcho())
			c, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
			if err != nil {
				t.Fatal(err)
			}
			return c.Login(ctx, reg.Host, auth.Credential{Username: echoUser, Password: echoPassword}), echoUser, []string{echoPassword}
		}},
		{"login with a wrong password, token service", func(t *testing.T) (error, string, []string) {
			reg := registrytest.New(t, registrytest.WithTokenAuth(echoUser, "right"), registrytest.WithCredentialEcho())
			c, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
			if err != nil {
				t.Fatal(err)
			}
			return c.Login(ctx, reg.Host, auth.Credential{Username: echoUser, Password: echoPassword}), echoUser, []string{echoPassword}
		}},
		{"push 401, basic", func(t *testing.T) (error, string, []string) {
			reg := registrytest.New(t, registrytest.WithBasicAuth(echoUser, "right"), registrytest.WithCredentialEcho())
			return pushBlob(t, reg.Host, writeConfig(t, reg.Host, basicEntry(echoUser, echoPassword))), echoUser, []string{echoPassword}
		}},
		{"push 401, token service", func(t *testing.T) (error, string, []string) {
			reg := registrytest.New(t, registrytest.WithTokenAuth(echoUser, "right"), registrytest.WithCredentialEcho())
			return pushBlob(t, reg.Host, writeConfig(t, reg.Host, basicEntry(echoUser, echoPassword))), echoUser, []string{echoPassword}
		}},
		{"push 401, token service, identity token", func(t *testing.T) (error, string, []string) {
			const identity = "id-t0ken/with+chars&more"
			reg := registrytest.New(t, registrytest.WithTokenAuth(echoUser, "right"), registrytest.WithCredentialEcho())
			entry := basicEntry("<token>", "")
			entry["identitytoken"] = identity
			return pushBlob(t, reg.Host, writeConfig(t, reg.Host, entry)), "<token>", []string{identity}
		}},
		{"push 403, bearer token", func(t *testing.T) (error, string, []string) {
			reg := registrytest.New(t, registrytest.WithTokenAuth(echoUser, echoPassword), registrytest.WithPullOnlyTokens(), registrytest.WithCredentialEcho())
			err := pushBlob(t, reg.Host, writeConfig(t, reg.Host, basicEntry(echoUser, echoPassword)))
			tokens := reg.IssuedTokens()
			if len(tokens) == 0 {
				t.Fatal("no token was issued: the push did not get as far as the registry")
			}
			return err, echoUser, append(tokens, echoPassword)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err, user, secrets := tt.run(t)
			if err == nil {
				t.Fatal("no error")
			}
			if errdefs.Of(err) != errdefs.Unavailable {
				t.Errorf("class %v, want %v: %v", errdefs.Of(err), errdefs.Unavailable, err)
			}
			// The registry's own words stay, with the secret replaced.
			if !strings.Contains(err.Error(), "***") {
				t.Errorf("the error does not show the registry's echo, redacted: %v", err)
			}
			assertNoSecret(t, "the error", err.Error(), user, secrets...)
		})
	}
}
