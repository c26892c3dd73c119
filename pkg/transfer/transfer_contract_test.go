package transfer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

type fixture struct {
	reg    *registrytest.Registry
	opener *target.Opener
	layout string
	// pkg is a real package in layout, tagged "good".
	pkg ocispec.Descriptor
	// manifest is pkg's manifest.
	manifest ocispec.Manifest
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	client, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{reg: registrytest.New(t), layout: filepath.Join(t.TempDir(), "layout"),
		opener: &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: client}}

	root := t.TempDir()
	skill := filepath.Join(root, "greet", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	if err := os.WriteFile(skill, []byte("---\nname: greet\ndescription: Greets. Use when testing transfers.\n---\n"+strings.Repeat("Hello. ", 200)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := staxyaml.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenLayout(ctx, f.layout)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pack.Build(ctx, s, pack.Options{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	f.pkg = res.Descriptor
	if err := s.Tag(ctx, f.pkg, "good"); err != nil {
		t.Fatal(err)
	}
	rc, err := s.Fetch(ctx, f.pkg)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(&f.manifest); err != nil {
		t.Fatal(err)
	}
	return f
}

// hostile stores in the layout, tagged tag, a copy of the package's
// manifest whose layers claim the given sizes.
func (f *fixture) hostile(t *testing.T, tag string, sizes ...int64) {
	t.Helper()
	ctx := context.Background()
	m := f.manifest
	m.Layers = nil
	for i, size := range sizes {
		l := f.manifest.Layers[0]
		l.Size = size
		if i > 0 { // a package has one skills layer; others are any blob
			l.MediaType = "application/vnd.example.extra"
		}
		m.Layers = append(m.Layers, l)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, data)
	s, err := store.OpenLayout(ctx, f.layout)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := s.Tag(ctx, desc, tag); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) open(t *testing.T, s string) *target.Target {
	t.Helper()
	ref, err := reference.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := f.opener.Open(context.Background(), ref, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt
}

// Sizes are vetted before a blob moves: nothing reaches the registry of
// a package that is too big, claims a negative size, or sizes whose sum
// overflows.
func TestCopyVetsSizesFirst(t *testing.T) {
	f := newFixture(t)
	real := f.manifest.Layers[0].Size
	tests := []struct {
		name    string
		sizes   []int64 // nil: the real package
		maxSize int64
		wantErr string // empty: copies
	}{
		{name: "real package, default limit"},
		{name: "real package, no limit", maxSize: -1},
		{name: "real package, exactly at the limit", maxSize: real},
		{name: "over the limit", maxSize: real - 1, wantErr: "over the " + itoa(real-1) + "-byte limit; pass --max-size"},
		{name: "over the default limit", sizes: []int64{64<<20 + 1}, wantErr: "over the 67108864-byte limit"},
		{name: "negative size", sizes: []int64{-5}, maxSize: -1, wantErr: "with a negative size (-5)"},
		{name: "sum overflows", sizes: []int64{math.MaxInt64 - 10, 20}, maxSize: -1, wantErr: "declare sizes whose sum would overflow"},
		{name: "sum overflows under a limit", sizes: []int64{math.MaxInt64, math.MaxInt64}, maxSize: 100, wantErr: "over the 100-byte limit"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tag := "good"
			if tt.sizes != nil {
				tag = "hostile" + itoa(int64(i))
				f.hostile(t, tag, tt.sizes...)
			}
			repo := "vet/case" + itoa(int64(i))
			src := f.open(t, "oci:"+f.layout+":"+tag)
			dst := f.open(t, f.reg.Host+"/"+repo+":1")
			f.reg.ResetRequests()
			res, err := transfer.Copy(context.Background(), src, dst, transfer.Options{Limits: layers.Limits{MaxSize: tt.maxSize}})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Copy: %v", err)
				}
				if res.Descriptor.Digest != f.pkg.Digest || res.Copied == 0 {
					t.Errorf("result %+v, want %s copied", res, f.pkg.Digest)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Copy: %v, want %q", err, tt.wantErr)
			}
			if n := len(f.reg.Requests()); n != 0 {
				t.Errorf("the registry saw %d requests for a package refused before any blob moves: %v", n, f.reg.Requests())
			}
			// Check says the same without copying.
			if _, err := transfer.Check(context.Background(), src, mustLookup(t, src), tt.maxSize); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Check: %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func mustLookup(t *testing.T, tgt *target.Target) ocispec.Descriptor {
	t.Helper()
	d, err := tgt.Lookup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A copy to a registry and back moves every blob once; a second copy
// moves nothing, and a pull lands the package in the local store under
// its reference.
func TestCopyRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	src := f.open(t, "oci:"+f.layout+":good")
	remote := f.reg.Host + "/round/trip:1.0.0"
	dst := f.open(t, remote)

	first, err := transfer.Copy(ctx, src, dst, transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 + len(f.manifest.Layers); first.Copied != want || first.Skipped != 0 {
		t.Errorf("first push: copied %d, skipped %d; want %d, 0", first.Copied, first.Skipped, want)
	}
	f.reg.ResetRequests()
	again, err := transfer.Copy(ctx, src, dst, transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Copied != 0 || f.reg.CountBlobUploads() != 0 {
		t.Errorf("second push copied %d, uploaded %d blobs; want nothing", again.Copied, f.reg.CountBlobUploads())
	}

	ref, _ := reference.Parse(remote)
	local, err := f.opener.OpenLocal(ctx, ref, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := transfer.Copy(ctx, f.open(t, remote), local, transfer.Options{})
	local.Close()
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Descriptor.Digest != f.pkg.Digest || pulled.Package.Config.Skills[0].Path != "greet" {
		t.Errorf("pulled %s with %+v", pulled.Descriptor.Digest, pulled.Package.Config)
	}
	tags, err := store.Tags(ctx, f.opener.StoreDir)
	if err != nil || len(tags) != 1 || tags[0] != store.Key(ref) {
		t.Errorf("local store tags %v, %v; want %s", tags, err, store.Key(ref))
	}
}

// With TagVersion, a destination without a tag is tagged with the
// package's version.
func TestCopyTagVersion(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	dst := f.open(t, f.reg.Host+"/versioned/pkg")
	if _, err := transfer.Copy(ctx, f.open(t, "oci:"+f.layout+":good"), dst, transfer.Options{TagVersion: true}); err != nil {
		t.Fatal(err)
	}
	tags, err := dst.Tags(ctx)
	if err != nil || len(tags) != 1 || tags[0] != pack.DefaultVersion {
		t.Errorf("tags %v, %v; want the package version %s", tags, err, pack.DefaultVersion)
	}
}

// A registry serving a manifest whose layer sizes overflow is refused on
// pull before any layer is fetched.
func TestPullVetsSizesFirst(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.hostile(t, "overflow", math.MaxInt64-10, 20)
	remote := f.reg.Host + "/hostile/pkg:1"
	// Copied as raw OCI content, around transfer's checks, as a hostile
	// publisher would push it.
	ref, _ := reference.Parse(remote)
	repo, err := f.opener.Registry.Repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	src, err := store.OpenLayout(ctx, f.layout)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append([]ocispec.Descriptor{f.manifest.Config}, f.manifest.Layers...) {
		rc, err := src.Fetch(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		err = repo.Push(ctx, d, rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	desc, err := src.Resolve(ctx, "overflow")
	if err != nil {
		t.Fatal(err)
	}
	data, err := content.FetchAll(ctx, src, desc)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.PushReference(ctx, desc, bytes.NewReader(data), "1"); err != nil {
		t.Skipf("the registry refuses the hostile manifest itself: %v", err)
	}

	local, err := f.opener.OpenLocal(ctx, ref, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	f.reg.ResetRequests()
	_, err = transfer.Copy(ctx, f.open(t, remote), local, transfer.Options{Limits: layers.Limits{MaxSize: -1}})
	local.Close()
	if err == nil || !strings.Contains(err.Error(), "declare sizes whose sum would overflow") {
		t.Fatalf("pull: %v, want the overflow refused", err)
	}
	for _, r := range f.reg.Requests() {
		if strings.Contains(r.Path, "/blobs/") && r.Path != "/v2/hostile/pkg/blobs/"+f.manifest.Config.Digest.String() {
			t.Errorf("a blob was fetched before the sizes were vetted: %s %s", r.Method, r.Path)
		}
	}
	if tags, _ := store.Tags(ctx, f.opener.StoreDir); len(tags) != 0 {
		t.Errorf("the refused package was tagged in the local store: %v", tags)
	}
}

// bodyRecorder is the innermost transport of a registry client: it notes
// whether each blob upload's body is still a file, which net/http sends
// with sendfile on a plain TCP connection.
type bodyRecorder struct {
	next    http.RoundTripper
	mu      sync.Mutex
	uploads []bool
}

func (r *bodyRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && strings.Contains(req.URL.Path, "/blobs/uploads/") {
		_, isFile := req.Body.(syscall.Conn)
		r.mu.Lock()
		r.uploads = append(r.uploads, isFile)
		r.mu.Unlock()
	}
	return r.next.RoundTrip(req)
}

// A blob pushed from a file (an OCI layout, the local store) reaches the
// HTTP transport as the file, so that the kernel can send it; a blob
// altered in the layout is refused before its upload starts.
func TestUploadsFromAFileCanUseSendfile(t *testing.T) {
	f := newFixture(t)
	recorder := &bodyRecorder{next: http.DefaultTransport.(*http.Transport).Clone()}
	client, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json"), Transport: recorder})
	if err != nil {
		t.Fatal(err)
	}
	f.opener.Registry = client
	if _, err := transfer.Copy(context.Background(), f.open(t, "oci:"+f.layout+":good"), f.open(t, f.reg.Host+"/acme/skills:1"), transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(recorder.uploads) != 2 || !recorder.uploads[0] || !recorder.uploads[1] {
		t.Errorf("blob uploads whose body is a file: %v; want two, both files", recorder.uploads)
	}

	layer := f.manifest.Layers[0].Digest
	blob := filepath.Join(f.layout, "blobs", layer.Algorithm().String(), layer.Encoded())
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f.reg.ResetRequests()
	_, err = transfer.Copy(context.Background(), f.open(t, "oci:"+f.layout+":good"), f.open(t, f.reg.Host+"/acme/other:1"), transfer.Options{})
	if errdefs.Of(err) != errdefs.DataLoss || !strings.Contains(err.Error(), "does not match its digest") {
		t.Errorf("copy of an altered blob: %v; want the layout's content named corrupt", err)
	}
	// Two blobs are missing, the config and the altered layer: only the
	// config's upload may have started.
	starts := 0
	for _, q := range f.reg.Requests() {
		if q.Method == http.MethodPost && strings.Contains(q.Path, "/blobs/uploads/") {
			starts++
		}
	}
	if starts > 1 {
		t.Errorf("%d uploads were started; the altered blob's should not have been", starts)
	}

}
