package registrytest_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/registrytest"
)

// Blob GETs are redirected under the prefix, where the registry serves
// the blob; nothing else moves.
func TestBlobRedirect(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t, registrytest.WithBlobRedirect("storage"))
	repo := repository(t, reg, "", "")
	ctx := context.Background()
	data := []byte("kept elsewhere")
	desc := blobDesc(data)
	if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	blobURL := reg.URL + "/v2/" + repoName + "/blobs/" + desc.Digest.String()
	resp, err := noFollow.Get(blobURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantLocation := "/storage/v2/" + repoName + "/blobs/" + desc.Digest.String()
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != wantLocation {
		t.Fatalf("GET blob: %s, Location %q; want 307 to %q", resp.Status, resp.Header.Get("Location"), wantLocation)
	}
	if got, err := content.FetchAll(ctx, repo, desc); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("fetch through the redirect: %q, %v", got, err)
	}
	if resp := get(t, reg.URL+"/v2/", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v2/: %s", resp.Status)
	}
}

// The token service answers at the path asked for, which the registry's
// challenge names as its realm.
func TestTokenRealm(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t, registrytest.WithTokenAuth("bob", "t0ken"), registrytest.WithTokenRealm("/storage/token"))
	resp := get(t, reg.URL+"/v2/", nil)
	challenge := resp.Header.Get("WWW-Authenticate")
	if !strings.Contains(challenge, `/storage/token"`) {
		t.Fatalf("challenge %q, want a realm at /storage/token", challenge)
	}
	roundTrip(t, repository(t, reg, "bob", "t0ken"), []byte("token"))
}

// A fail fault with a reason phrase sends it in its status line, and its
// body and headers as ever.
func TestFailReason(t *testing.T) {
	t.Parallel()
	fault := registrytest.Fail(http.MethodGet, "^/v2/$", http.StatusServiceUnavailable).RetryAfter(3).Reason("Come Back Later")
	reg := registrytest.New(t, registrytest.WithFaults(fault))
	resp, err := http.Get(reg.URL + "/v2/")
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.Status != "503 Come Back Later" || resp.Header.Get("Retry-After") != "3" || !strings.Contains(body, `"UNAVAILABLE"`) {
		t.Errorf("%q, Retry-After %q, body %q", resp.Status, resp.Header.Get("Retry-After"), body)
	}
	// The body read, the handler may not have returned and recorded the
	// request whole yet.
	reg.WaitIdle()
	if reqs := reg.Requests(); len(reqs) != 1 || reqs[0].Status != http.StatusServiceUnavailable || reqs[0].ResponseBytes != int64(len(body)) {
		t.Errorf("requests: %+v", reqs)
	}
	if resp := get(t, reg.URL+"/v2/", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("after the fault: %s", resp.Status)
	}
}
