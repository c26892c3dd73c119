package transfer_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/transfer"
)

// A copy with NoOverwrite whose tag another client, taking no lock of
// stax's, writes right after the copy's own write — between the write and
// its read-back — is refused with a TagExistsError naming that client's
// digest, not reported as pushed: the tag is theirs, and the copy's
// manifest stays in the repository by digest only.
func TestNoOverwriteCopyThatLosesTheTagSaysWhoWon(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.packAnother(t)
	other := f.open(t, "oci:"+f.layout+":other")
	otherDesc, err := other.Lookup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Copy(ctx, other, f.open(t, f.reg.Host+"/lost/tag@"+otherDesc.Digest.String()), transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	rc, err := other.Fetch(ctx, otherDesc)
	if err != nil {
		t.Fatal(err)
	}
	otherManifest, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}

	proxy := overtakingProxy(t, "http://"+f.reg.Host, "/v2/lost/tag/manifests/1.0.0", otherDesc.MediaType, otherManifest)
	_, err = transfer.Copy(ctx, f.open(t, "oci:"+f.layout+":good"), f.open(t, proxy+"/lost/tag:1.0.0"), transfer.Options{NoOverwrite: true})
	var exists *transfer.TagExistsError
	if !errors.As(err, &exists) || !exists.Lost || exists.Current != otherDesc.Digest || exists.Refused != f.pkg.Digest || errdefs.Of(err) != errdefs.Unavailable {
		t.Fatalf("Copy: %v (%s); want a lost claim naming %s", err, errdefs.Of(err), otherDesc.Digest)
	}
	if !strings.Contains(err.Error(), "another push tagged 1.0.0 with "+otherDesc.Digest.String()) {
		t.Errorf("the message does not say who won: %v", err)
	}
	if d, err := f.open(t, f.reg.Host+"/lost/tag:1.0.0").Lookup(ctx); err != nil || d.Digest != otherDesc.Digest {
		t.Errorf("the tag names %s (%v), want the other client's %s", d.Digest, err, otherDesc.Digest)
	}
}

// overtakingProxy serves backend, but for the first PUT of path, which it
// answers only once another client's PUT of manifest under the same path
// has reached backend after it: a writer that overtakes it.
func overtakingProxy(t *testing.T, backend, path, mediaType string, manifest []byte) string {
	t.Helper()
	u, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(u)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		overtaken := false
		if req.Method == http.MethodPut && req.URL.Path == path {
			once.Do(func() { overtaken = true })
		}
		if !overtaken {
			forward.ServeHTTP(w, req)
			return
		}
		rec := httptest.NewRecorder()
		forward.ServeHTTP(rec, req)
		put, err := http.NewRequestWithContext(req.Context(), http.MethodPut, backend+path, bytes.NewReader(manifest))
		if err != nil {
			t.Error(err)
			return
		}
		put.Header.Set("Content-Type", mediaType)
		resp, err := http.DefaultClient.Do(put)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Errorf("the overtaking PUT: %v %v", resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}
