package registry_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

func newClient(t *testing.T, opts registry.Options) *registry.Client {
	t.Helper()
	if opts.RegistryConfig == "" {
		opts.RegistryConfig = filepath.Join(t.TempDir(), "config.json")
	}
	c, err := registry.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustRef(t *testing.T, s string) reference.Reference {
	t.Helper()
	ref, err := reference.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// count counts the requests of reg with method whose path contains part.
func count(reg *registrytest.Registry, method, part string) int {
	n := 0
	for _, r := range reg.Requests() {
		if r.Method == method && strings.Contains(r.Path, part) {
			n++
		}
	}
	return n
}

// With a chunk size, a blob goes up in PATCH chunks of at most that size
// and comes back whole; a manifest goes up as usual.
func TestChunkedUploads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t)
	c := newClient(t, registry.Options{ChunkSize: 64})
	repo, err := c.Repository(mustRef(t, reg.Host+"/skills/chunked:1"))
	if err != nil {
		t.Fatal(err)
	}
	target := c.Uploads(repo)

	for _, size := range []int{200, 64, 1, 0} {
		blob := bytes.Repeat([]byte{'x'}, size)
		blob = append(blob, []byte(fmt.Sprint(size))...) // a blob of its own per size
		desc := content.NewDescriptorFromBytes("application/octet-stream", blob)
		reg.ResetRequests()
		if err := target.Push(ctx, desc, bytes.NewReader(blob)); err != nil {
			t.Fatalf("push %d bytes: %v", len(blob), err)
		}
		if want := (len(blob) + 63) / 64; count(reg, "PATCH", "/blobs/uploads/") != want || count(reg, "POST", "/blobs/uploads/") != 1 || count(reg, "PUT", "/blobs/uploads/") != 1 {
			t.Errorf("%d bytes: %d PATCH, %d POST, %d PUT; want %d chunks, one POST and one PUT", len(blob),
				count(reg, "PATCH", "/blobs/uploads/"), count(reg, "POST", "/blobs/uploads/"), count(reg, "PUT", "/blobs/uploads/"), want)
		}
		got, err := content.FetchAll(ctx, repo, desc)
		if err != nil || !bytes.Equal(got, blob) {
			t.Errorf("%d bytes: fetched %q, %v", len(blob), got, err)
		}
	}

	// A manifest is not chunked.
	config := content.NewDescriptorFromBytes(ocispec.MediaTypeEmptyJSON, []byte("{}"))
	if err := target.Push(ctx, config, bytes.NewReader([]byte("{}"))); err != nil {
		t.Fatal(err)
	}
	manifest := []byte(`{"schemaVersion":2,"mediaType":"` + ocispec.MediaTypeImageManifest + `","config":{"mediaType":"` + ocispec.MediaTypeEmptyJSON + `","digest":"` + config.Digest.String() + `","size":2},"layers":[]}`)
	mdesc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, manifest)
	reg.ResetRequests()
	if err := target.Push(ctx, mdesc, bytes.NewReader(manifest)); err != nil {
		t.Fatal(err)
	}
	if count(reg, "PATCH", "") != 0 || count(reg, "PUT", "/manifests/"+mdesc.Digest.String()) != 1 {
		t.Errorf("the manifest went up as %v, want one PUT", reg.Requests())
	}
	// Without a chunk size the repository is used as it is.
	if plain := newClient(t, registry.Options{}).Uploads(repo); plain != repo {
		t.Errorf("Uploads without a chunk size = %T, want the repository", plain)
	}
}

// A chunked upload that the registry refuses, or whose blob is not the
// size its descriptor gives, fails with an error Explain classifies.
func TestChunkedUploadFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	blob := bytes.Repeat([]byte("y"), 150)
	desc := content.NewDescriptorFromBytes("application/octet-stream", blob)

	for _, tt := range []struct {
		name  string
		fault *registrytest.Fault
		blob  []byte
		class errdefs.Class
		want  string
	}{
		{"start refused", registrytest.Fail("POST", "^/v2/skills/demo/blobs/uploads/$", 403), blob, errdefs.Unavailable, "lack push access"},
		{"chunk refused", registrytest.Fail("PATCH", "^/v2/skills/demo/blobs/uploads/.+", 403).Times(1), blob, errdefs.Unavailable, "lack push access"},
		{"commit refused", registrytest.Fail("PUT", "^/v2/skills/demo/blobs/uploads/.+", 403), blob, errdefs.Unavailable, "lack push access"},
		{"a short blob", nil, blob[:100], errdefs.DataLoss, "does not match its digest"},
		{"a long blob", nil, append(append([]byte{}, blob...), 'z'), errdefs.DataLoss, "does not match its digest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registrytest.New(t)
			if tt.fault != nil {
				reg.AddFaults(tt.fault)
			}
			c := newClient(t, registry.Options{ChunkSize: 64})
			ref := mustRef(t, reg.Host+"/skills/demo:1")
			repo, err := c.Repository(ref)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Uploads(repo).Push(ctx, desc, bytes.NewReader(tt.blob))
			if err == nil {
				t.Fatal("the upload succeeded")
			}
			err = registry.Explain(err, reg.Host, ref.String())
			if errdefs.Of(err) != tt.class || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Push: %v (class %v), want %v saying %q", err, errdefs.Of(err), tt.class, tt.want)
			}
			if tt.fault != nil && tt.fault.Hits() == 0 {
				t.Error("the fault was never injected")
			}
			if ok, _ := repo.Exists(ctx, desc); ok {
				t.Error("the blob is in the registry after a failed upload")
			}
		})
	}
}

// A registry served over TLS is reached with its CA or --insecure; without
// either, the error says how to trust it; the CA file must hold one.
func TestTLS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t, registrytest.WithTLS())
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, reg.CACert, 0o644); err != nil {
		t.Fatal(err)
	}
	https := false
	ref := mustRef(t, reg.Host+"/skills/tls:1")
	ping := func(opts registry.Options) error {
		c := newClient(t, opts)
		r, err := c.Registry(reg.Host)
		if err != nil {
			t.Fatal(err)
		}
		return registry.Explain(r.Ping(ctx), reg.Host, ref.String())
	}
	for _, tt := range []struct {
		name string
		opts registry.Options
		want string
	}{
		{"with its CA", registry.Options{PlainHTTP: &https, CAFile: ca}, ""},
		{"insecure", registry.Options{PlainHTTP: &https, Insecure: true}, ""},
		{"untrusted", registry.Options{PlainHTTP: &https}, "the TLS certificate of " + reg.Host + " is not trusted: pass --ca-file with its CA, or --insecure"},
		{"plain HTTP to TLS", registry.Options{}, "refused a plain-HTTP request for " + ref.String() + ": if it serves HTTPS, pass --plain-http=false"},
	} {
		err := ping(tt.opts)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v (class %v), want a registry error saying %q", tt.name, err, errdefs.Of(err), tt.want)
		}
	}

	_, err := registry.New(registry.Options{CAFile: filepath.Join(t.TempDir(), "none.pem")})
	if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "read --ca-file") {
		t.Errorf("a missing CA file: %v (class %v), want a local error", err, errdefs.Of(err))
	}
	garbage := filepath.Join(t.TempDir(), "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = registry.New(registry.Options{CAFile: garbage})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "--ca-file "+garbage+" holds no PEM certificate") {
		t.Errorf("a CA file without a certificate: %v (class %v), want an invalid-argument error", err, errdefs.Of(err))
	}
}

// BeforeTLS is called before a request goes out over TLS, to a registry
// or through an HTTPS proxy, and before the system's roots are read for
// a CA file; never for plain HTTP.
func TestBeforeTLS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ping := func(host string, opts registry.Options) {
		r, err := newClient(t, opts).Registry(host)
		if err != nil {
			t.Fatal(err)
		}
		r.Ping(ctx) //nolint:errcheck // the calls are what is checked
	}
	var calls atomic.Int64
	count := func() { calls.Add(1) }
	plain := registrytest.New(t)
	ping(plain.Host, registry.Options{BeforeTLS: count})
	if n := calls.Load(); n != 0 {
		t.Errorf("BeforeTLS called %d times for a plain-HTTP registry, want none", n)
	}
	tlsReg := registrytest.New(t, registrytest.WithTLS())
	https := false
	ping(tlsReg.Host, registry.Options{PlainHTTP: &https, Insecure: true, BeforeTLS: count})
	if calls.Load() == 0 {
		t.Error("BeforeTLS not called for a registry over HTTPS")
	}
	calls.Store(0)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, tlsReg.CACert, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.New(registry.Options{CAFile: ca, BeforeTLS: count, RegistryConfig: filepath.Join(t.TempDir(), "config.json")}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 {
		t.Error("BeforeTLS not called before the system's roots are read for a CA file")
	}
	calls.Store(0)
	proxied := &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return url.Parse("https://127.0.0.1:1") }}
	ping(plain.Host, registry.Options{Transport: proxied, Timeout: 5 * time.Second, BeforeTLS: count})
	if calls.Load() == 0 {
		t.Error("BeforeTLS not called for a plain-HTTP request through an HTTPS proxy")
	}
}

// HTTPS to a registry that serves plain HTTP says to pass --plain-http.
func TestHTTPSToPlainHTTP(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	https := false
	c := newClient(t, registry.Options{PlainHTTP: &https})
	r, err := c.Registry(reg.Host)
	if err != nil {
		t.Fatal(err)
	}
	err = registry.Explain(r.Ping(context.Background()), reg.Host, reg.Host)
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), reg.Host+" serves plain HTTP: pass --plain-http") {
		t.Errorf("Ping: %v (class %v), want the plain-HTTP hint", err, errdefs.Of(err))
	}
}

// What a registry answers is explained with the fix: credentials missing
// or refused, a missing repository, and a registry that is not there.
func TestExplainRegistryAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	authed := registrytest.New(t, registrytest.WithBasicAuth("alice", "s3cret"))
	open := registrytest.New(t, registrytest.WithFaults(registrytest.Fail("", "^/v2/secret/skills/manifests/1$", 403)))
	gone := registrytest.New(t)
	gone.Stop()
	c := newClient(t, registry.Options{})

	resolve := func(reg *registrytest.Registry, repo string) error {
		ref := mustRef(t, reg.Host+"/"+repo+":1")
		r, err := c.Repository(ref)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Resolve(ctx, "1")
		return registry.Explain(err, reg.Host, ref.String())
	}
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"no credentials", resolve(authed, "skills/demo"), "authentication required for " + authed.Host + ": run `stax login " + authed.Host + "`"},
		{"no permission", resolve(open, "secret/skills"), "access to " + open.Host + "/secret/skills:1 denied by " + open.Host + ": the credentials lack permission"},
		{"not found", resolve(open, "skills/none"), open.Host + "/skills/none:1 not found on " + open.Host},
		{"no registry", resolve(gone, "skills/demo"), "cannot reach " + gone.Host},
	} {
		if errdefs.Of(tt.err) != errdefs.Unavailable || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: %v (class %v), want a registry error saying %q", tt.name, tt.err, errdefs.Of(tt.err), tt.want)
		}
	}
}

// Errors of the network policy and of oras-go read as what they are.
func TestExplainErrors(t *testing.T) {
	t.Parallel()
	const host, target = "registry.example", "registry.example/skills:1"
	stall := &registry.StallError{Host: host, Op: "GET /v2/skills/blobs/sha256:abc", Timeout: 30 * time.Second}
	read := &registry.ReadError{Host: host, Op: "GET /v2/skills/blobs/sha256:abc", Attempts: 4, Err: io.ErrUnexpectedEOF}
	classified := errdefs.Invalid(errors.New("already explained"))
	for _, tt := range []struct {
		name  string
		err   error
		class errdefs.Class
		want  string
	}{
		{"stall", stall, errdefs.Unavailable, "registry registry.example stopped answering (registry.example sent nothing for 30s during GET /v2/skills/blobs/sha256:abc): check the network, or pass a longer --timeout"},
		{"broken reads", read, errdefs.Unavailable, "the connection to registry.example kept breaking (GET /v2/skills/blobs/sha256:abc, 4 tries: unexpected EOF): check the network, and try again"},
		{"no credentials saved", fmt.Errorf("get token: %w", auth.ErrBasicCredentialNotFound), errdefs.Unavailable, "authentication required for registry.example: run `stax login registry.example`"},
		{"not found", fmt.Errorf("resolve: %w", errdef.ErrNotFound), errdefs.Unavailable, target + " not found on registry.example"},
		{"digest mismatch", fmt.Errorf("fetch: %w", content.ErrMismatchedDigest), errdefs.DataLoss, target + ": the registry's copy of a blob is corrupt, its content does not match its digest (fetch: mismatched digest); nothing was kept. A registry keeps the copy it stored of a digest, so pushing the package again does not replace it"},
		{"invalid digest", fmt.Errorf("fetch: %w", errdef.ErrInvalidDigest), errdefs.DataLoss, "content from registry.example does not match its digest"},
		{"too large", fmt.Errorf("fetch: %w", errdef.ErrSizeExceedsLimit), errdefs.Unavailable, "content from registry.example is larger than allowed"},
		{"anything else", errors.New("teapot"), errdefs.Unavailable, "registry registry.example: teapot"},
		{"already classified", classified, errdefs.InvalidArgument, "already explained"},
	} {
		err := registry.Explain(tt.err, host, target)
		if errdefs.Of(err) != tt.class || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v (class %v), want %v saying %q", tt.name, err, errdefs.Of(err), tt.class, tt.want)
		}
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: the explained error does not wrap the original", tt.name)
		}
	}
	// A run that was stopped is not the registry's failure.
	if err := registry.Explain(context.Canceled, host, target); err != context.Canceled {
		t.Errorf("Explain(context.Canceled) = %v, want it as it is", err)
	}
}

// Login with credentials the registry refuses saves nothing; logout of a
// host never logged in to reports that there was nothing to remove.
func TestLoginRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := registrytest.New(t, registrytest.WithBasicAuth("alice", "s3cret"))
	config := filepath.Join(t.TempDir(), "config.json")
	c := newClient(t, registry.Options{RegistryConfig: config})
	err := c.Login(ctx, reg.Host, auth.Credential{Username: "alice", Password: "wrong"})
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), reg.Host+" did not accept the credentials for alice") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("Login: %v (class %v), want the refusal without the password", err, errdefs.Of(err))
	}
	if data, err := os.ReadFile(config); err == nil && strings.Contains(string(data), reg.Host) {
		t.Errorf("refused credentials were saved: %s", data)
	}
	removed, err := c.Logout(ctx, reg.Host)
	if err != nil || removed {
		t.Errorf("Logout = %v, %v; want nothing removed", removed, err)
	}

	gone := registrytest.New(t)
	gone.Stop()
	err = c.Login(ctx, gone.Host, auth.Credential{Username: "alice", Password: "s3cret"})
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), "cannot reach "+gone.Host) {
		t.Errorf("Login to a stopped registry: %v (class %v), want a registry error", err, errdefs.Of(err))
	}

	if _, err := c.Registry("bad host name"); errdefs.Of(err) != errdefs.InvalidArgument {
		t.Errorf("Registry(bad host name): %v, want an invalid-argument error", err)
	}
}

// A blob fetched through the client is checked against its descriptor.
func TestFetchChecksContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	blob := []byte("the content of a blob")
	desc := content.NewDescriptorFromBytes("application/octet-stream", blob)
	reg := registrytest.New(t)
	c := newClient(t, registry.Options{})
	ref := mustRef(t, reg.Host+"/skills/demo:1")
	repo, err := c.Repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Uploads(repo).Push(ctx, desc, bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}
	reg.AddFaults(registrytest.CorruptBlob("skills/demo", desc.Digest))
	_, err = content.FetchAll(ctx, repo, desc)
	err = registry.Explain(err, reg.Host, ref.String())
	if errdefs.Of(err) != errdefs.DataLoss || !errors.Is(err, content.ErrMismatchedDigest) {
		t.Errorf("a corrupt blob: %v (class %v), want a data-loss digest mismatch", err, errdefs.Of(err))
	}
	other := desc
	other.Digest = digest.FromString("another blob")
	_, err = content.FetchAll(ctx, repo, other)
	if err = registry.Explain(err, reg.Host, ref.String()); errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), "not found on "+reg.Host) {
		t.Errorf("a missing blob: %v (class %v), want not found", err, errdefs.Of(err))
	}
}
