package registry_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

const dockerHubKey = "https://index.docker.io/v1/"

// dockerHubTransport reaches reg, a TLS registry on loopback, for every
// connection to Docker Hub's API host, trusting reg's certificate: the
// client under test believes it talks to registry-1.docker.io.
func dockerHubTransport(t *testing.T, reg *registrytest.Registry) http.RoundTripper {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(reg.CACert) {
		t.Fatal("no CA certificate")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr != registry.DockerHubHost+":443" {
			t.Errorf("dial %s: only Docker Hub is expected", addr)
			return nil, &net.OpError{Op: "dial", Net: network, Err: os.ErrPermission}
		}
		return d.DialContext(ctx, network, reg.Host)
	}
	return tr
}

// writeCredentialHelper installs docker-credential-NAME on PATH, a helper
// that knows alice's password under Docker Hub's key only.
func writeCredentialHelper(t *testing.T, name, user, password string) {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
[ "$1" = get ] || exit 1
read -r server
if [ "$server" = "` + dockerHubKey + `" ]; then
  printf '{"ServerURL":"%s","Username":"` + user + `","Secret":"` + password + `"}\n' "$server"
  exit 0
fi
echo "credentials not found in native keychain"
exit 1
`
	if err := os.WriteFile(filepath.Join(dir, "docker-credential-"+name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestDockerHubCredentialsAreSent(t *testing.T) {
	writeCredentialHelper(t, "stax-test", "alice", "s3cret")
	basic := base64.StdEncoding.EncodeToString([]byte("alice:s3cret"))
	configs := map[string]string{
		"docker login entry": `{"auths":{"` + dockerHubKey + `":{"auth":"` + basic + `"}}}`,
		"credsStore entry":   `{"credsStore":"stax-test"}`,
		"credHelpers entry":  `{"credHelpers":{"` + dockerHubKey + `":"stax-test"}}`,
	}
	for name, config := range configs {
		t.Run(name, func(t *testing.T) {
			reg := registrytest.New(t, registrytest.WithTLS(), registrytest.WithBasicAuth("alice", "s3cret"))
			path := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			client, err := registry.New(registry.Options{RegistryConfig: path, Transport: dockerHubTransport(t, reg)})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := reference.Parse("alice/skills:1.0.0")
			if err != nil {
				t.Fatal(err)
			}
			repo, err := client.Repository(ref)
			if err != nil {
				t.Fatal(err)
			}
			blob := []byte("hello")
			if err := repo.Push(context.Background(), content.NewDescriptorFromBytes("application/octet-stream", blob), bytes.NewReader(blob)); err != nil {
				t.Fatalf("push to Docker Hub with a %s: %v", name, err)
			}
			sent := 0
			for _, r := range reg.Requests() {
				if r.AuthScheme == "Basic" {
					sent++
				}
			}
			if sent == 0 {
				t.Errorf("no request carried the credentials: %+v", reg.Requests())
			}
		})
	}
}

func TestDockerHubLoginAndLogoutUseDockersKey(t *testing.T) {
	for _, host := range []string{"docker.io", "registry-1.docker.io", "index.docker.io"} {
		t.Run(host, func(t *testing.T) {
			reg := registrytest.New(t, registrytest.WithTLS(), registrytest.WithBasicAuth("alice", "s3cret"))
			path := filepath.Join(t.TempDir(), "config.json")
			client, err := registry.New(registry.Options{RegistryConfig: path, Transport: dockerHubTransport(t, reg)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := client.Login(ctx, host, auth.Credential{Username: "alice", Password: "s3cret"}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte(`"`+dockerHubKey+`"`)) || bytes.Contains(data, []byte(`"`+host+`"`)) {
				t.Errorf("login %s saved %s, want the key %s only", host, data, dockerHubKey)
			}
			removed, err := client.Logout(ctx, host)
			if err != nil || !removed {
				t.Fatalf("logout %s: removed %v, %v", host, removed, err)
			}
			data, _ = os.ReadFile(path)
			if bytes.Contains(data, []byte(dockerHubKey)) {
				t.Errorf("logout %s left %s", host, data)
			}
			if removed, err := client.Logout(ctx, host); err != nil || removed {
				t.Errorf("second logout %s: removed %v, %v; want nothing removed", host, removed, err)
			}
		})
	}
}
