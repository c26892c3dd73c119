package registry_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

// A status line's reason phrase is the server's own text, and can echo a
// secret: a retry's wait and a failed re-read say the status in standard
// words, never in the registry's.
func TestStatusMessagesIgnoreReasonPhrase(t *testing.T) {
	t.Parallel()
	const user = "ci-bot"
	hostile := "Echo of " + echoPassword
	blob := bytes.Repeat([]byte("reason phrase "), 200)
	desc := content.NewDescriptorFromBytes("application/octet-stream", blob)
	blobPath := "^/v2/team/skills/blobs/" + desc.Digest.String() + "$"

	// open pushes the blob to a registry needing the password, with a
	// client that has sent it, and returns the repository, the registry
	// and what the client was told of waits.
	// --debug's trace is kept too.
	open := func(t *testing.T) (*registrytest.Registry, func() error, func() []string, *syncBuffer) {
		reg := registrytest.New(t, registrytest.WithBasicAuth(user, echoPassword))
		var mu sync.Mutex
		var reasons []string
		trace := &syncBuffer{}
		c, err := registry.New(registry.Options{
			Trace:          trace,
			RegistryConfig: writeConfig(t, reg.Host, basicEntry(user, echoPassword)),
			OnWait: func(_ string, _ time.Duration, reason string) {
				mu.Lock()
				defer mu.Unlock()
				reasons = append(reasons, reason)
			},
		})
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
		fetch := func() error {
			got, err := content.FetchAll(ctx, repo, desc)
			if err == nil && !bytes.Equal(got, blob) {
				t.Fatal("fetched other content")
			}
			return registry.Explain(err, reg.Host, ref.String())
		}
		told := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return reasons
		}
		return reg, fetch, told, trace
	}

	for _, status := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		t.Run("retry wait "+http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			reg, fetch, told, trace := open(t)
			fault := registrytest.Fail(http.MethodGet, blobPath, status).RetryAfter(0).Reason(hostile)
			reg.AddFaults(fault)
			if err := fetch(); err != nil {
				t.Fatalf("fetch after one %d: %v", status, err)
			}
			reasons := told()
			if fault.Hits() != 1 || len(reasons) != 1 {
				t.Fatalf("fault hits %d, waits told %d; want 1 and 1", fault.Hits(), len(reasons))
			}
			if want := http.StatusText(status); !strings.Contains(reasons[0], want) {
				t.Errorf("the wait's reason does not say %q", want)
			}
			assertNoSecret(t, "the wait's reason", reasons[0], user, echoPassword)
			if !strings.Contains(trace.String(), http.StatusText(status)) {
				t.Errorf("the trace does not show the %d:\n%s", status, trace.String())
			}
			assertNoSecret(t, "the trace", trace.String(), user, echoPassword)
		})
	}

	for _, tt := range []struct {
		name   string
		faults func() []*registrytest.Fault
	}{
		// The rest of the body, asked for with Range, is refused.
		{"read again, range", func() []*registrytest.Fault {
			return []*registrytest.Fault{
				registrytest.Truncate(http.MethodGet, blobPath),
				registrytest.Fail(http.MethodGet, blobPath, http.StatusNotFound).Reason(hostile),
			}
		}},
		// No range served; the whole body, asked for again, is refused.
		{"read again, whole", func() []*registrytest.Fault {
			return []*registrytest.Fault{
				registrytest.Truncate(http.MethodGet, blobPath),
				registrytest.Fail(http.MethodGet, blobPath, http.StatusRequestedRangeNotSatisfiable),
				registrytest.Fail(http.MethodGet, blobPath, http.StatusNotFound).Reason(hostile),
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg, fetch, _, _ := open(t)
			faults := tt.faults()
			reg.AddFaults(faults...)
			err := fetch()
			if err == nil {
				t.Fatal("the fetch succeeded")
			}
			for i, f := range faults {
				if f.Hits() != 1 {
					t.Fatalf("fault %d hit %d times, want 1: %v", i, f.Hits(), err)
				}
			}
			if !strings.Contains(err.Error(), "read again: 404 "+http.StatusText(http.StatusNotFound)) {
				t.Errorf("the error does not say the re-read's status: %v", err)
			}
			assertNoSecret(t, "the error", err.Error(), user, echoPassword)
		})
	}
}
