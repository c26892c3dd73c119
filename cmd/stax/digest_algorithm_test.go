package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/registrytest"
)

// TestConfigOfAnUnknownDigestAlgorithmIsRefused: a hostile registry's
// manifest names its config by a digest of an algorithm stax does not
// know, and serves bytes for it. The package is refused as invalid;
// verifying those bytes must not crash stax (go-digest panics when asked
// for the hash of an unknown algorithm).
func TestConfigOfAnUnknownDigestAlgorithmIsRefused(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	host := unknownAlgorithmRegistry(t, reg, "acme/skills", "1.0.0")
	r := runStax(t, "inspect", host+"/acme/skills:1.0.0")
	if r.Code != 1 || !strings.Contains(r.Stderr, "md5:") {
		t.Fatalf("exit %d, want 1 naming the config's digest\n%s", r.Code, r.Stderr)
	}
}

// unknownAlgorithmRegistry is a registry in front of reg whose manifest
// of repo:tag names its config by an md5 digest, which it serves the
// config's bytes for. It returns the registry's host.
func unknownAlgorithmRegistry(t *testing.T, reg *registrytest.Registry, repo, tag string) string {
	t.Helper()
	ctx := context.Background()
	src := testRepository(t, reg.Host+"/"+repo)
	_, raw, err := oras.FetchBytes(ctx, src, tag, oras.DefaultFetchBytesOptions)
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	config, err := content.FetchAll(ctx, src, m.Config)
	if err != nil {
		t.Fatal(err)
	}
	m.Config.Digest = digest.Digest("md5:" + strings.Repeat("0", 32))
	if raw, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	manifest := digest.FromBytes(raw)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: reg.Host})
	mux := http.NewServeMux()
	mux.Handle("/", proxy)
	serve := func(body []byte, mediaType string, d digest.Digest) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", mediaType)
			w.Header().Set("Docker-Content-Digest", d.String())
			w.Write(body)
		}
	}
	for _, ref := range []string{tag, manifest.String()} {
		mux.Handle("/v2/"+repo+"/manifests/"+ref, serve(raw, ocispec.MediaTypeImageManifest, manifest))
	}
	mux.Handle("/v2/"+repo+"/blobs/"+m.Config.Digest.String(), serve(config, m.Config.MediaType, ""))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}
