package registrytest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/stax-dev/stax/internal/registrytest"
)

const repoName = "skills/demo"

// fastRetry retries like oras-go's default client, without the waits. Its
// connections are its own: httptest.Server.Close closes the idle
// connections of http.DefaultTransport, and another parallel test closing
// its server would break a request of this one on a reused connection.
var fastRetry = &http.Client{Transport: &retry.Transport{Base: http.DefaultTransport.(*http.Transport).Clone(), Policy: func() retry.Policy {
	return &retry.GenericPolicy{
		Retryable: retry.DefaultPredicate,
		Backoff:   retry.DefaultBackoff,
		MinWait:   time.Millisecond,
		MaxWait:   10 * time.Millisecond,
		MaxRetry:  3,
	}
}}}

// repository returns an oras-go client for repoName on reg; with user set,
// it authenticates.
func repository(t *testing.T, reg *registrytest.Registry, user, pass string) *remote.Repository {
	t.Helper()
	repo, err := remote.NewRepository(reg.Host + "/" + repoName)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	client := &auth.Client{Client: fastRetry, Cache: auth.NewCache()}
	if user != "" {
		client.Credential = auth.StaticCredential(reg.Host, auth.Credential{Username: user, Password: pass})
	}
	repo.Client = client
	return repo
}

func get(t *testing.T, url string, setAuth func(*http.Request)) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if setAuth != nil {
		setAuth(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestPing(t *testing.T) {
	reg := registrytest.New(t)
	if !strings.HasPrefix(reg.Host, "127.0.0.1:") || reg.URL != "http://"+reg.Host {
		t.Errorf("Host %q, URL %q: want http://127.0.0.1:PORT", reg.Host, reg.URL)
	}
	if resp := get(t, reg.URL+"/v2/", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v2/: %s, want 200", resp.Status)
	}
}

func TestBasicAuth(t *testing.T) {
	reg := registrytest.New(t, registrytest.WithBasicAuth("alice", "s3cret"))
	resp := get(t, reg.URL+"/v2/", nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
		t.Errorf("GET /v2/ without credentials: %s %q, want 401 with a Basic challenge",
			resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	if resp := get(t, reg.URL+"/v2/", func(r *http.Request) { r.SetBasicAuth("alice", "wrong") }); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v2/ with a wrong password: %s, want 401", resp.Status)
	}
	if resp := get(t, reg.URL+"/v2/", func(r *http.Request) { r.SetBasicAuth("alice", "s3cret") }); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v2/ with credentials: %s, want 200", resp.Status)
	}

	roundTrip(t, repository(t, reg, "alice", "s3cret"), []byte("basic"))
	if _, err := repository(t, reg, "", "").Exists(context.Background(), blobDesc([]byte("basic"))); err == nil {
		t.Error("anonymous Exists succeeded on a registry that needs credentials")
	}
}

func TestTokenAuth(t *testing.T) {
	reg := registrytest.New(t, registrytest.WithTokenAuth("bob", "t0ken"))
	resp := get(t, reg.URL+"/v2/", nil)
	challenge := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer realm=\"http://127.0.0.1:") {
		t.Fatalf("GET /v2/ without a token: %s %q, want 401 with a Bearer challenge on loopback", resp.Status, challenge)
	}

	roundTrip(t, repository(t, reg, "bob", "t0ken"), []byte("token"))

	ctx := context.Background()
	if _, err := repository(t, reg, "bob", "wrong").Exists(ctx, blobDesc([]byte("token"))); err == nil {
		t.Error("Exists with a wrong password succeeded")
	}
	if _, err := repository(t, reg, "", "").Exists(ctx, blobDesc([]byte("token"))); err == nil {
		t.Error("anonymous Exists succeeded")
	}
}

func TestFilesystem(t *testing.T) {
	reg := registrytest.New(t, registrytest.WithFilesystem())
	roundTrip(t, repository(t, reg, "", ""), []byte("on disk"))
}

// roundTrip pushes a blob and a tagged manifest, and reads both back.
func roundTrip(t *testing.T, repo *remote.Repository, data []byte) {
	t.Helper()
	ctx := context.Background()
	desc := blobDesc(data)
	if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		t.Fatalf("pushing a blob: %v", err)
	}
	got, err := content.FetchAll(ctx, repo, desc)
	if err != nil {
		t.Fatalf("fetching the blob: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("fetched %q, pushed %q", got, data)
	}

	mdesc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.stax.test",
		oras.PackManifestOptions{Layers: []ocispec.Descriptor{desc}})
	if err != nil {
		t.Fatalf("pushing a manifest: %v", err)
	}
	if err := repo.Tag(ctx, mdesc, "1.0.0"); err != nil {
		t.Fatalf("tagging: %v", err)
	}
	resolved, err := repo.Resolve(ctx, "1.0.0")
	if err != nil {
		t.Fatalf("resolving the tag: %v", err)
	}
	if resolved.Digest != mdesc.Digest {
		t.Fatalf("tag resolves to %s, want %s", resolved.Digest, mdesc.Digest)
	}
}

func blobDesc(data []byte) ocispec.Descriptor {
	return content.NewDescriptorFromBytes("application/octet-stream", data)
}

func TestRequests(t *testing.T) {
	reg := registrytest.New(t)
	repo := repository(t, reg, "", "")
	ctx := context.Background()
	data := []byte("recorded")
	if err := repo.Push(ctx, blobDesc(data), bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	reqs := reg.Requests()
	put := last(reqs, http.MethodPut)
	if put == nil || put.Status != http.StatusCreated || put.BodyBytes != int64(len(data)) ||
		!strings.Contains(put.Query, "digest=sha256") || put.Fault != "" {
		t.Errorf("blob PUT recorded as %+v, want 201 with %d body bytes and a digest", put, len(data))
	}
	if n := reg.CountBlobUploads(); n != 2 { // POST, then a monolithic PUT
		t.Errorf("CountBlobUploads = %d, want 2; requests: %+v", n, reqs)
	}

	reg.ResetRequests()
	if n := len(reg.Requests()); n != 0 {
		t.Errorf("%d requests after ResetRequests", n)
	}
	if ok, err := repo.Exists(ctx, blobDesc(data)); err != nil || !ok {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	if reqs := reg.Requests(); len(reqs) != 1 || reqs[0].Method != http.MethodHead || reqs[0].Status != http.StatusOK ||
		reqs[0].Path != "/v2/"+repoName+"/blobs/"+blobDesc(data).Digest.String() {
		t.Errorf("requests after a HEAD: %+v", reqs)
	}
	if n := reg.CountBlobUploads(); n != 0 {
		t.Errorf("CountBlobUploads = %d after a HEAD, want 0", n)
	}
}

// last returns the last recorded request with method, or nil.
func last(reqs []registrytest.Request, method string) *registrytest.Request {
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method == method {
			return &reqs[i]
		}
	}
	return nil
}

func TestFail(t *testing.T) {
	fault := registrytest.Fail(http.MethodGet, "^/v2/$", http.StatusTooManyRequests).Times(2).RetryAfter(7)
	reg := registrytest.New(t, registrytest.WithFaults(fault))
	for i, want := range []int{429, 429, 200, 200} {
		resp := get(t, reg.URL+"/v2/", nil)
		if resp.StatusCode != want {
			t.Errorf("request %d: %s, want %d", i, resp.Status, want)
		}
		if ra := resp.Header.Get("Retry-After"); (want == 429) != (ra == "7") {
			t.Errorf("request %d: Retry-After %q", i, ra)
		}
	}
	if fault.Hits() != 2 {
		t.Errorf("Hits = %d, want 2", fault.Hits())
	}
	reqs := reg.Requests()
	if len(reqs) != 4 || reqs[0].Fault != "fail" || reqs[0].Status != 429 || reqs[2].Fault != "" {
		t.Errorf("requests: %+v", reqs)
	}

	// A method that does not match is untouched.
	reg.AddFaults(registrytest.Fail(http.MethodPost, "", http.StatusInternalServerError).Times(-1))
	if resp := get(t, reg.URL+"/v2/", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET with a POST fault: %s", resp.Status)
	}
}

// TestFailAfterBody checks that oras-go's retry resends a blob PUT's whole
// body after the registry read it and failed.
func TestFailAfterBody(t *testing.T) {
	putUpload := registrytest.FailAfterBody(http.MethodPut, `^/v2/.+/blobs/uploads/.+`, http.StatusServiceUnavailable)
	reg := registrytest.New(t, registrytest.WithFaults(putUpload))
	repo := repository(t, reg, "", "")
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	ctx := context.Background()
	if err := repo.Push(ctx, blobDesc(data), bytes.NewReader(data)); err != nil {
		t.Fatalf("push with one failed PUT: %v", err)
	}

	var puts []registrytest.Request
	for _, r := range reg.Requests() {
		if r.Method == http.MethodPut {
			puts = append(puts, r)
		}
	}
	if len(puts) != 2 || puts[0].Status != 503 || puts[0].Fault != "fail-after-body" || puts[1].Status != 201 {
		t.Fatalf("PUTs: %+v, want a failed one then a created one", puts)
	}
	for i, p := range puts {
		if p.BodyBytes != int64(len(data)) {
			t.Errorf("PUT %d sent %d body bytes, want %d", i, p.BodyBytes, len(data))
		}
	}
	got, err := content.FetchAll(ctx, repo, blobDesc(data))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("fetch after the retried push: %d bytes, %v", len(got), err)
	}
}

func TestResetConn(t *testing.T) {
	reg := registrytest.New(t, registrytest.WithFaults(registrytest.ResetConn("", "^/v2/$")))
	if resp, err := http.Get(reg.URL + "/v2/"); err == nil {
		resp.Body.Close()
		t.Fatalf("GET through a reset: %s, want a network error", resp.Status)
	}
	if resp := get(t, reg.URL+"/v2/", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET after the reset: %s", resp.Status)
	}
	reqs := reg.Requests()
	if len(reqs) != 2 || reqs[0].Fault != "reset" || reqs[0].Status != 0 {
		t.Errorf("requests: %+v", reqs)
	}
}

func TestCorruptBlob(t *testing.T) {
	reg := registrytest.New(t)
	repo := repository(t, reg, "", "")
	ctx := context.Background()
	data := []byte("the real content")
	desc := blobDesc(data)
	if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	reg.AddFaults(registrytest.CorruptBlob(repoName, desc.Digest))

	_, err := content.FetchAll(ctx, repo, desc)
	if !errors.Is(err, content.ErrMismatchedDigest) {
		t.Fatalf("fetching a corrupted blob: %v, want %v", err, content.ErrMismatchedDigest)
	}
	if got, err := content.FetchAll(ctx, repo, desc); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("second fetch: %q, %v", got, err)
	}

	// The last byte instead of the first: everything before it arrives intact.
	last := int64(len(data) - 1)
	reg.AddFaults(registrytest.CorruptBlob(repoName, desc.Digest).AtByte(last))
	rc, err := repo.Fetch(ctx, desc)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, _ := io.ReadAll(rc)
	if !bytes.Equal(got[:last], data[:last]) || got[last] != data[last]^0xff {
		t.Fatalf("fetched %q with its last byte flipped, want it from %q", got, data)
	}
}

func TestStop(t *testing.T) {
	reg := registrytest.New(t)
	get(t, reg.URL+"/v2/", nil)
	reg.Stop()
	if resp, err := http.Get(reg.URL + "/v2/"); err == nil {
		resp.Body.Close()
		t.Fatalf("GET after Stop: %s, want a connection error", resp.Status)
	}
	reg.Stop()  // again: no-op
	reg.Close() // and Close after Stop
}

// TestReferrers records what distribution v3.1.2 does with the OCI 1.1
// referrers API: it does not serve it (404), so oras-go falls back to the
// referrers tag schema ("sha256-<hex>" index), which works.
func TestReferrers(t *testing.T) {
	reg := registrytest.New(t)
	repo := repository(t, reg, "", "")
	ctx := context.Background()
	data := []byte("subject layer")
	if err := repo.Push(ctx, blobDesc(data), bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	subject, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.stax.test",
		oras.PackManifestOptions{Layers: []ocispec.Descriptor{blobDesc(data)}})
	if err != nil {
		t.Fatal(err)
	}

	resp := get(t, reg.URL+"/v2/"+repoName+"/referrers/"+subject.Digest.String(), nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET referrers: %s; distribution v3.1.2 was thought to answer 404", resp.Status)
	}

	sig, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.stax.signature",
		oras.PackManifestOptions{Subject: &subject})
	if err != nil {
		t.Fatalf("pushing a referrer: %v", err)
	}
	var found []digest.Digest
	if err := repo.Referrers(ctx, subject, "", func(refs []ocispec.Descriptor) error {
		for _, r := range refs {
			found = append(found, r.Digest)
		}
		return nil
	}); err != nil {
		t.Fatalf("listing referrers: %v", err)
	}
	if len(found) != 1 || found[0] != sig.Digest {
		t.Errorf("referrers %v, want [%s]", found, sig.Digest)
	}
	tagRE := regexp.MustCompile(`^sha256-[0-9a-f]{64}$`)
	var tags []string
	if err := repo.Tags(ctx, "", func(ts []string) error { tags = append(tags, ts...); return nil }); err != nil {
		t.Fatal(err)
	}
	var fallback bool
	for _, tag := range tags {
		fallback = fallback || tagRE.MatchString(tag)
	}
	if !fallback {
		b, _ := json.Marshal(tags)
		t.Errorf("no referrers tag-schema tag among %s", b)
	}
}

// TestReferrersAPI checks that WithReferrersAPI serves the OCI 1.1
// referrers endpoint, which distribution answers with 404, and that a
// pushed referrer is listed there.
func TestReferrersAPI(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []registrytest.Option
		want int
	}{
		{"distribution", nil, http.StatusNotFound},
		{"go-containerregistry", []registrytest.Option{registrytest.WithReferrersAPI()}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := registrytest.New(t, tc.opts...)
			repo := repository(t, reg, "", "")
			subject, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.example.subject", oras.PackManifestOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.example.sig", oras.PackManifestOptions{Subject: &subject})
			if err != nil {
				t.Fatal(err)
			}
			resp := get(t, reg.URL+"/v2/"+repoName+"/referrers/"+subject.Digest.String(), nil)
			if resp.StatusCode != tc.want {
				t.Fatalf("GET referrers: %s, want %d", resp.Status, tc.want)
			}
			var found []ocispec.Descriptor
			if err := repo.Referrers(ctx, subject, "", func(r []ocispec.Descriptor) error {
				found = append(found, r...)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(found) != 1 || found[0].ArtifactType != "application/vnd.example.sig" {
				t.Errorf("referrers = %+v, want the one signature", found)
			}
		})
	}
}

// TestNetworkFaults checks what a client sees of each network fault when
// it reads a blob the registry has.
func TestNetworkFaults(t *testing.T) {
	blob := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	desc := content.NewDescriptorFromBytes("application/octet-stream", blob)
	blobPath := "^/v2/" + repoName + "/blobs/"
	stallMidBody := registrytest.StallMidBody(http.MethodGet, blobPath)
	for _, tt := range []struct {
		name  string
		fault *registrytest.Fault
		check func(t *testing.T, resp *http.Response, body []byte, err error, rec registrytest.Request)
	}{
		{"truncate", registrytest.Truncate(http.MethodGet, blobPath), func(t *testing.T, resp *http.Response, body []byte, err error, _ registrytest.Request) {
			if resp.ContentLength != int64(len(blob)) || len(body) != len(blob)/2 || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("Content-Length %d, read %d bytes, %v; want %d, half, unexpected EOF", resp.ContentLength, len(body), err, len(blob))
			}
		}},
		{"reset mid-body", registrytest.ResetMidBody(http.MethodGet, blobPath), func(t *testing.T, _ *http.Response, body []byte, err error, _ registrytest.Request) {
			if len(body) != len(blob)/2 || err == nil {
				t.Errorf("read %d bytes, %v; want half and an error", len(body), err)
			}
		}},
		{"stall mid-body", stallMidBody, func(t *testing.T, _ *http.Response, body []byte, err error, rec registrytest.Request) {
			if len(body) != len(blob)/2 || !errors.Is(err, context.Canceled) || rec.ResponseBytes != int64(len(blob)/2) {
				t.Errorf("read %d bytes (%d recorded), %v; want half, then the client's cancel", len(body), rec.ResponseBytes, err)
			}
		}},
		{"stream", registrytest.Stream(http.MethodGet, blobPath, 1<<20), func(t *testing.T, resp *http.Response, body []byte, err error, rec registrytest.Request) {
			if resp.ContentLength != -1 || len(body) != 1<<20 || err != nil || rec.ResponseBytes != 1<<20 {
				t.Errorf("Content-Length %d, read %d bytes (%d recorded), %v; want none, 1 MiB", resp.ContentLength, len(body), rec.ResponseBytes, err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := registrytest.New(t)
			if err := repository(t, reg, "", "").Push(context.Background(), desc, bytes.NewReader(blob)); err != nil {
				t.Fatal(err)
			}
			reg.AddFaults(tt.fault)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, reg.URL+"/v2/"+repoName+"/blobs/"+desc.Digest.String(), nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			if tt.fault == stallMidBody {
				// The client gives up once it has the half that comes.
				body = make([]byte, len(blob)/2)
				if _, err := io.ReadFull(resp.Body, body); err != nil {
					t.Fatal(err)
				}
				cancel()
			}
			rest, err := io.ReadAll(resp.Body)
			body = append(body, rest...)
			resp.Body.Close()
			reg.WaitIdle() // the handler has recorded its end
			reqs := reg.Requests()
			tt.check(t, resp, body, err, reqs[len(reqs)-1])
			if tt.fault.Hits() != 1 {
				t.Errorf("fault hits %d, want 1", tt.fault.Hits())
			}
		})
	}
}

// TestStall checks that a stalled request holds until the client gives up.
func TestStall(t *testing.T) {
	fault := registrytest.Stall(http.MethodGet, "^/v2/$")
	reg := registrytest.New(t, registrytest.WithFaults(fault))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, reg.URL+"/v2/", nil)
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || fault.Hits() != 1 {
		t.Errorf("stalled GET: %v, fault hits %d; want the client's deadline", err, fault.Hits())
	}
}

// TestRetryAfterTime checks the HTTP-date form of Retry-After.
func TestRetryAfterTime(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	reg := registrytest.New(t, registrytest.WithFaults(registrytest.Fail(http.MethodGet, "^/v2/$", http.StatusTooManyRequests).RetryAfterTime(at)))
	resp := get(t, reg.URL+"/v2/", nil)
	if got := resp.Header.Get("Retry-After"); got != "Wed, 02 Jan 2030 03:04:05 GMT" || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("%s, Retry-After %q", resp.Status, got)
	}
}

func TestResizeBody(t *testing.T) {
	t.Parallel()
	blob := []byte("a blob of some size")
	desc := blobDesc(blob)
	for _, tt := range []struct {
		delta   int
		chunked bool
	}{{-3, false}, {5, false}, {-3, true}, {5, true}} {
		delta := tt.delta
		reg := registrytest.New(t)
		repo := repository(t, reg, "", "")
		if err := repo.Push(context.Background(), desc, bytes.NewReader(blob)); err != nil {
			t.Fatal(err)
		}
		fault := registrytest.ResizeBody(http.MethodGet, "/blobs/", delta)
		wantLength := int64(len(blob) + delta)
		if tt.chunked {
			fault.Chunked()
			wantLength = -1
		}
		reg.AddFaults(fault)
		resp, err := http.Get(reg.URL + "/v2/" + repoName + "/blobs/" + desc.Digest.String())
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		if want := len(blob) + delta; resp.StatusCode != http.StatusOK || len(body) != want || resp.ContentLength != wantLength ||
			!strings.HasPrefix(string(blob)+"\x00\x00\x00\x00\x00", body) {
			t.Errorf("delta %d, chunked %v: %s, Content-Length %d, %q; want 200 and %d bytes, Content-Length %d", delta, tt.chunked, resp.Status, resp.ContentLength, body, want, wantLength)
		}
	}
}
