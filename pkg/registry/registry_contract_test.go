package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

func TestCredentialKey(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"docker.io":            dockerHubKey,
		"index.docker.io":      dockerHubKey,
		"registry-1.docker.io": dockerHubKey,
		"ghcr.io":              "ghcr.io",
		"localhost:5000":       "localhost:5000",
		"127.0.0.1:5000":       "127.0.0.1:5000",
		"docker.io.evil.com":   "docker.io.evil.com",
	}
	for host, want := range tests {
		if got := registry.CredentialKey(host); got != want {
			t.Errorf("CredentialKey(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"localhost": true, "localhost:5000": true, "127.0.0.1": true, "127.1.2.3:80": true,
		"[::1]:5000": true, "::1": true, "LOCALHOST:5000": true, "LocalHost": true,
		"ghcr.io": false, "10.0.0.1:5000": false, "localhost.example.com": false, "[::2]:5000": false, "0.0.0.0:5000": false,
	}
	for host, want := range tests {
		if got := registry.IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// savedKeys reads the keys of the auths of a Docker config file (never
// their secrets, which a failure message would print).
func savedKeys(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Auths map[string]json.RawMessage `json:"auths"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for k := range cfg.Auths {
		keys[k] = true
	}
	return keys
}

// Login saves credentials only once the registry accepted them, in a
// file only the user can read; Logout removes them.
func TestLoginLogout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opt  registrytest.Option
	}{
		{"basic", registrytest.WithBasicAuth("alice", "s3cret")},
		{"token", registrytest.WithTokenAuth("alice", "s3cret")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			reg := registrytest.New(t, tt.opt)
			config := filepath.Join(t.TempDir(), "docker", "config.json")
			client := func() *registry.Client {
				c, err := registry.New(registry.Options{RegistryConfig: config})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			ref, err := reference.Parse(reg.Host + "/team/skills:1")
			if err != nil {
				t.Fatal(err)
			}
			push := func() error {
				repo, err := client().Repository(ref)
				if err != nil {
					t.Fatal(err)
				}
				blob := []byte("credential check")
				return registry.Explain(repo.Push(ctx, content.NewDescriptorFromBytes("application/octet-stream", blob), bytes.NewReader(blob)), reg.Host, ref.String())
			}

			if err := push(); err == nil || !strings.Contains(err.Error(), "run `stax login "+reg.Host+"`") {
				t.Errorf("push without credentials: %v, want a hint to log in", err)
			}
			err = client().Login(ctx, reg.Host, auth.Credential{Username: "alice", Password: "wrong"})
			if err == nil || !strings.Contains(err.Error(), "did not accept the credentials for alice") {
				t.Errorf("Login with a wrong password: %v", err)
			}
			if err != nil && strings.Contains(err.Error(), "wrong") {
				t.Errorf("the error prints the password: %v", err)
			}
			if keys := savedKeys(t, config); len(keys) != 0 {
				t.Errorf("refused credentials were saved: %v", keys)
			}

			if err := client().Login(ctx, reg.Host, auth.Credential{Username: "alice", Password: "s3cret"}); err != nil {
				t.Fatalf("Login: %v", err)
			}
			info, err := os.Stat(config)
			if err != nil {
				t.Fatal(err)
			}
			if perm := info.Mode().Perm(); perm != 0o600 {
				t.Errorf("credentials file mode %o, want 600", perm)
			}
			if _, ok := savedKeys(t, config)[registry.CredentialKey(reg.Host)]; !ok {
				t.Errorf("no credentials saved under %s: %v", reg.Host, savedKeys(t, config))
			}
			if err := push(); err != nil {
				t.Errorf("push with saved credentials: %v", err)
			}

			for i, want := range []bool{true, false} {
				had, err := client().Logout(ctx, reg.Host)
				if err != nil || had != want {
					t.Errorf("Logout #%d = %v, %v; want %v", i+1, had, err, want)
				}
			}
			if _, ok := savedKeys(t, config)[registry.CredentialKey(reg.Host)]; ok {
				t.Error("credentials still saved after Logout")
			}
			if err := push(); err == nil {
				t.Error("push succeeded after Logout")
			}
		})
	}
}

// A config file that existed with looser permissions holds secrets once
// stax logs in: it must end up readable by the user alone.
func TestLoginTightensAnExistingConfig(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t, registrytest.WithBasicAuth("alice", "s3cret"))
	config := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(config, []byte(`{"auths":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := registry.New(registry.Options{RegistryConfig: config})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login(context.Background(), reg.Host, auth.Credential{Username: "alice", Password: "s3cret"}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(config)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("credentials file mode %o after login, want 600", perm)
	}
}

func TestExplainNotFound(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	c, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := reference.Parse(reg.Host + "/no/such:1")
	repo, err := c.Repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	_, err = repo.Resolve(context.Background(), "1")
	err = registry.Explain(err, reg.Host, ref.String())
	if err == nil || !strings.Contains(err.Error(), ref.String()+" not found on "+reg.Host+": check the repository and tag") {
		t.Errorf("Explain: %v", err)
	}
	if registry.Explain(nil, reg.Host, "x") != nil {
		t.Error("Explain(nil) is not nil")
	}
	if _, err := c.Repository(reference.Reference{Layout: "/l", Tag: "1"}); err == nil {
		t.Error("Repository of an OCI layout succeeded")
	}
}
