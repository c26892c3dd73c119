package registry_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

// waitBlob is the blob the tests of this file fetch.
var waitBlob = bytes.Repeat([]byte("wait for it "), 1000)

// blobRepository pushes waitBlob to a fresh registry and returns the
// registry, the blob's descriptor and the path of its GETs.
func blobRepository(t *testing.T) (*registrytest.Registry, ocispec.Descriptor, string) {
	t.Helper()
	reg := registrytest.New(t)
	desc := content.NewDescriptorFromBytes("application/octet-stream", waitBlob)
	if err := openRepository(t, reg, registry.Options{}).Push(context.Background(), desc, bytes.NewReader(waitBlob)); err != nil {
		t.Fatal(err)
	}
	return reg, desc, "^/v2/team/skills/blobs/" + desc.Digest.String() + "$"
}

// openRepository opens team/skills on reg through a Client of opts.
func openRepository(t *testing.T, reg *registrytest.Registry, opts registry.Options) *remote.Repository {
	t.Helper()
	opts.RegistryConfig = filepath.Join(t.TempDir(), "config.json")
	c, err := registry.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Parse(reg.Host + "/team/skills:1")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := c.Repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// backoffBounds are the bounds of the wait before retry n (from 0): 250 ms
// doubling each time, give or take the 10% jitter.
func backoffBounds(n int) (lo, hi time.Duration) {
	base := 250 * time.Millisecond << n
	return base * 9 / 10, base * 11 / 10
}

// checkBackoffs checks that waits are the backoffs before retries 0, 1, …
func checkBackoffs(t *testing.T, waits []time.Duration, want int) {
	t.Helper()
	if len(waits) != want {
		t.Fatalf("waited %v, want %d backoffs", waits, want)
	}
	for i, w := range waits {
		if lo, hi := backoffBounds(i); w < lo || w >= hi {
			t.Errorf("wait %d is %v, want [%v, %v) in %v", i, w, lo, hi, waits)
		}
	}
}

// A registry's Retry-After is waited on the client's clock, in either
// form, up to MaxRetryAfter, and OnWait is told the same wait.
func TestRetryAfterWaitsOnTheClock(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		fault func(path string) *registrytest.Fault
		want  time.Duration
	}{
		{"seconds", func(p string) *registrytest.Fault {
			return registrytest.Fail(http.MethodGet, p, http.StatusTooManyRequests).RetryAfter(5)
		}, 5 * time.Second},
		{"seconds over the cap", func(p string) *registrytest.Fault {
			return registrytest.Fail(http.MethodGet, p, http.StatusTooManyRequests).RetryAfter(600)
		}, registry.MaxRetryAfter},
		{"HTTP date", func(p string) *registrytest.Fault {
			return registrytest.Fail(http.MethodGet, p, http.StatusServiceUnavailable).RetryAfterTime(now.Add(7 * time.Second))
		}, 7 * time.Second},
		{"HTTP date past the cap", func(p string) *registrytest.Fault {
			return registrytest.Fail(http.MethodGet, p, http.StatusTooManyRequests).RetryAfterTime(now.Add(time.Hour))
		}, registry.MaxRetryAfter},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg, desc, path := blobRepository(t)
			fault := tt.fault(path)
			reg.AddFaults(fault)
			clock := registrytest.NewClock(now)
			var mu sync.Mutex
			var told []time.Duration
			repo := openRepository(t, reg, registry.Options{Clock: clock, OnWait: func(host string, wait time.Duration, _ string) {
				mu.Lock()
				defer mu.Unlock()
				if host != reg.Host {
					t.Errorf("OnWait told of host %s, want %s", host, reg.Host)
				}
				told = append(told, wait)
			}})
			got, err := content.FetchAll(context.Background(), repo, desc)
			if err != nil || !bytes.Equal(got, waitBlob) || fault.Hits() != 1 {
				t.Fatalf("fetch after one Retry-After: %v, %d bytes, fault hits %d", err, len(got), fault.Hits())
			}
			mu.Lock()
			defer mu.Unlock()
			if waits := clock.Waits(); len(waits) != 1 || waits[0] != tt.want || len(told) != 1 || told[0] != tt.want {
				t.Errorf("waited %v, OnWait told %v; want %v once", waits, told, tt.want)
			}
		})
	}
}

// Without Retry-After, the waits between tries double from 250 ms, and a
// request is tried six times at most.
func TestRetryBackoffGrowsOnTheClock(t *testing.T) {
	t.Parallel()
	reg, desc, path := blobRepository(t)
	fault := registrytest.Fail(http.MethodGet, path, http.StatusServiceUnavailable).Times(-1)
	reg.AddFaults(fault)
	clock := registrytest.NewClock(time.Now())
	if _, err := content.FetchAll(context.Background(), openRepository(t, reg, registry.Options{Clock: clock}), desc); err == nil {
		t.Fatal("a registry failing every try was fetched from")
	}
	if fault.Hits() != 6 {
		t.Errorf("tried %d times, want 6", fault.Hits())
	}
	checkBackoffs(t, clock.Waits(), 5)
}

// A body read again after a broken read waits its backoff on the clock too.
func TestRereadBackoffOnTheClock(t *testing.T) {
	t.Parallel()
	reg, desc, path := blobRepository(t)
	fault := registrytest.Truncate(http.MethodGet, path).Times(2)
	reg.AddFaults(fault)
	clock := registrytest.NewClock(time.Now())
	got, err := content.FetchAll(context.Background(), openRepository(t, reg, registry.Options{Clock: clock}), desc)
	if err != nil || !bytes.Equal(got, waitBlob) || fault.Hits() != 2 {
		t.Fatalf("fetch through two broken reads: %v, %d bytes, fault hits %d", err, len(got), fault.Hits())
	}
	checkBackoffs(t, clock.Waits(), 2)
}

// stuckClock is a clock whose waits end only when their context does. It
// tells sleeping of each wait begun.
type stuckClock struct{ sleeping chan<- time.Duration }

func (stuckClock) Now() time.Time { return time.Now() }

func (c stuckClock) Sleep(ctx context.Context, d time.Duration) error {
	c.sleeping <- d
	<-ctx.Done()
	return ctx.Err()
}

// Cancelling the context during a wait, before a retry or before reading a
// body again, ends the fetch at once with the context's error.
func TestCancelEndsTheWait(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		fault func(path string) *registrytest.Fault
	}{
		{"retry", func(p string) *registrytest.Fault {
			return registrytest.Fail(http.MethodGet, p, http.StatusServiceUnavailable).Times(-1)
		}},
		{"Retry-After", func(p string) *registrytest.Fault {
			return registrytest.Fail(http.MethodGet, p, http.StatusTooManyRequests).RetryAfter(30).Times(-1)
		}},
		{"read again", func(p string) *registrytest.Fault { return registrytest.Truncate(http.MethodGet, p).Times(-1) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg, desc, path := blobRepository(t)
			reg.AddFaults(tt.fault(path))
			sleeping := make(chan time.Duration, 1)
			repo := openRepository(t, reg, registry.Options{Clock: stuckClock{sleeping: sleeping}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fetched := make(chan error, 1)
			go func() {
				_, err := content.FetchAll(ctx, repo, desc)
				fetched <- err
			}()
			select {
			case <-sleeping:
			case err := <-fetched:
				t.Fatalf("fetch ended without waiting: %v", err)
			}
			cancel()
			if err := <-fetched; !errors.Is(err, context.Canceled) {
				t.Errorf("fetch cancelled while waiting: %v, want context.Canceled", err)
			}
		})
	}
}
