package registry_test

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

// Content served whole but of another size than its descriptor is content
// that does not verify (errdefs.DataLoss), whichever way oras-go reports
// it; a body the network keeps breaking stays the registry's failure
// (errdefs.Unavailable), although it too ends short.
func TestExplainSizeMismatch(t *testing.T) {
	t.Parallel()
	blob := bytes.Repeat([]byte("size matters "), 100)
	desc := content.NewDescriptorFromBytes("application/octet-stream", blob)
	path := "^/v2/team/skills/blobs/" + desc.Digest.String() + "$"
	for _, tt := range []struct {
		name  string
		fault *registrytest.Fault
		want  errdefs.Class
	}{
		{"shorter", registrytest.ResizeBody(http.MethodGet, path, -1), errdefs.DataLoss},
		{"longer", registrytest.ResizeBody(http.MethodGet, path, 1), errdefs.DataLoss},
		{"shorter, chunked", registrytest.ResizeBody(http.MethodGet, path, -1).Chunked(), errdefs.DataLoss},
		{"longer, chunked", registrytest.ResizeBody(http.MethodGet, path, 1).Chunked(), errdefs.DataLoss},
		{"truncated every time", registrytest.Truncate(http.MethodGet, path), errdefs.Unavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registrytest.New(t)
			// The clock records the waits between reads instead of sleeping.
			c, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json"), Clock: registrytest.NewClock(time.Now())})
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := reference.Parse(reg.Host + "/team/skills:1")
			repo, err := c.Repository(ref)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := repo.Push(ctx, desc, bytes.NewReader(blob)); err != nil {
				t.Fatal(err)
			}
			reg.AddFaults(tt.fault.Times(-1))
			_, err = content.FetchAll(ctx, repo, desc)
			err = registry.Explain(err, reg.Host, ref.String())
			if err == nil || errdefs.Of(err) != tt.want || !strings.Contains(err.Error(), reg.Host) {
				t.Errorf("fetch: %v (class %v); want class %v naming %s", err, errdefs.Of(err), tt.want, reg.Host)
			}
			// A pull streams the blob into a store instead, which words
			// a short body otherwise; it is the same mismatch.
			storage, err := oci.NewStorage(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			rc, err := repo.Fetch(ctx, desc)
			if err == nil {
				err = storage.Push(ctx, desc, rc)
				rc.Close()
			}
			err = registry.Explain(err, reg.Host, ref.String())
			if err == nil || errdefs.Of(err) != tt.want {
				t.Errorf("copy into a store: %v (class %v); want class %v", err, errdefs.Of(err), tt.want)
			}
		})
	}
}
