package artifact

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// withPackagesLayer packs a package whose config lists no dependencies
// and whose packages layer is layer, described as desc.
func withPackagesLayer(t *testing.T, layer []byte, desc ocispec.Descriptor) (*fetchLog, ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	store := &fetchLog{Store: memory.New()}
	if err := store.Push(ctx, content.NewDescriptorFromBytes(MediaTypePackages, layer), strings.NewReader(string(layer))); err != nil {
		t.Fatal(err)
	}
	manifest, _, err := PackManifest(ctx, store, &Config{SpecVersion: SpecVersion, Kind: KindAgent, Name: "p", Version: "1"}, []ocispec.Descriptor{desc}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return store, manifest
}

// The dependencies a packages layer lists without a digest are the
// package's dependencies when its config lists none.
func TestFetchReadsPackagesLayer(t *testing.T) {
	t.Parallel()
	layer := []byte(`{"packages":[{"kind":"package","ref":"ghcr.io/acme/base:1.0.0"},{"kind":"package","ref":"./local"}],"specVersion":"1.0.0"}`)
	store, manifest := withPackagesLayer(t, layer, content.NewDescriptorFromBytes(MediaTypePackages, layer))
	pkg, err := Fetch(context.Background(), store, manifest)
	if err != nil {
		t.Fatal(err)
	}
	want := []PackageRef{{Kind: KindPackage, Ref: "ghcr.io/acme/base:1.0.0"}, {Kind: KindPackage, Ref: "./local"}}
	if len(pkg.Config.Packages) != 2 || pkg.Config.Packages[0] != want[0] || pkg.Config.Packages[1] != want[1] {
		t.Errorf("dependencies %v, want %v", pkg.Config.Packages, want)
	}
}

// A packages layer over the limit is refused before a byte of it is
// fetched; one with more entries than the limit, or a hostile reference,
// is refused as a package stax cannot materialize.
func TestFetchRefusesHostilePackagesLayer(t *testing.T) {
	t.Parallel()
	many := `{"packages":[` + strings.Repeat(`{"kind":"package","ref":"ghcr.io/a/b:1"},`, MaxDependencies) + `{"kind":"package","ref":"ghcr.io/a/b:1"}]}`
	for _, tc := range []struct {
		name, layer, want string
		oversize          bool
	}{
		{"oversized", `{"packages":[]}`, "over the 1048576-byte limit", true},
		{"too many", many, "over the limit of 1024", false},
		{"not JSON", `[`, "not the JSON of a packages layer", false},
		{"layout", `{"packages":[{"kind":"package","ref":"oci:/etc"}]}`, "names a directory of the machine", false},
		{"bad reference", `{"packages":[{"kind":"package","ref":"ghcr.io/A B"}]}`, "invalid reference", false},
		{"empty reference", `{"packages":[{"kind":"package"}]}`, "without a reference", false},
		{"other kind", `{"packages":[{"kind":"agent","ref":"ghcr.io/a/b:1"}]}`, `of kind "agent"`, false},
		{"bad digest", `{"packages":[{"digest":"sha256:12","kind":"package","ref":"ghcr.io/a/b:1"}]}`, "digest", false},
		{"no registry", `{"packages":[{"kind":"package","ref":"acme/base:1"}]}`, "names no registry", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			layer := []byte(tc.layer)
			desc := content.NewDescriptorFromBytes(MediaTypePackages, layer)
			if tc.oversize {
				desc.Size = MaxPackagesLayerSize + 1
			}
			store, manifest := withPackagesLayer(t, layer, desc)
			_, err := Fetch(context.Background(), store, manifest)
			if !errors.Is(err, ErrInvalidPackage) || errdefs.Of(err) != errdefs.FailedPrecondition || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v (%v), want a refusal saying %q", err, errdefs.Of(err), tc.want)
			}
			for _, d := range store.fetched {
				if tc.oversize && d == desc.Digest {
					t.Errorf("the oversized layer was fetched")
				}
			}
		})
	}
}

// alteringFetcher serves packages layers with one byte changed, as a
// registry or a disk that corrupts blobs would.
type alteringFetcher struct{ content.Fetcher }

func (a alteringFetcher) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	rc, err := a.Fetcher.Fetch(ctx, desc)
	if err != nil || desc.MediaType != MediaTypePackages {
		return rc, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	data[0] ^= 0xff
	return io.NopCloser(bytes.NewReader(data)), nil
}

// A packages layer that is not the bytes its digest names is corrupt
// content, whoever served it.
func TestFetchPackagesLayerOfAnotherDigestIsCorrupt(t *testing.T) {
	t.Parallel()
	layer := []byte(`{"packages":[{"kind":"package","ref":"ghcr.io/acme/base:1.0.0"}]}`)
	store, manifest := withPackagesLayer(t, layer, content.NewDescriptorFromBytes(MediaTypePackages, layer))
	_, err := Fetch(context.Background(), alteringFetcher{store}, manifest)
	if errdefs.Of(err) != errdefs.DataLoss {
		t.Fatalf("got %v (%v), want corrupt content", err, errdefs.Of(err))
	}
}
