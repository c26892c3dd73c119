package registrytest_test

import (
	"context"
	"net/http"
	"runtime"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// getStatus sends a GET of path to reg with ctx, and returns its status, or 0
// when it failed.
func getStatus(ctx context.Context, reg *registrytest.Registry, path string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, reg.URL+path, nil)
	if err != nil {
		return 0
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A request sent alone waits at a Gate until its client gives
// up, and the fault says it was never released.
func TestGateHoldsALoneRequest(t *testing.T) {
	t.Parallel()
	fault := registrytest.Gate(http.MethodGet, "^/v2/$", 2)
	reg := registrytest.New(t, registrytest.WithFaults(fault))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- getStatus(ctx, reg, "/v2/") }()
	// Wait until the request is recorded, hence held, then give up.
	for len(reg.Requests()) == 0 {
		runtime.Gosched()
	}
	cancel()
	if status := <-done; status != 0 {
		t.Errorf("the abandoned request got status %d", status)
	}
	reg.WaitIdle()
	if fault.Released() {
		t.Error("a lone request was released")
	}
}
