package registrytest_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
)

// A Gate lets n matching requests through once they are in flight
// together, and every later one, and counts the most it saw at once;
// requests it does not match pass while it is closed.
func TestGateOpensWhenEnoughRequestsAreInFlight(t *testing.T) {
	t.Parallel()
	gate := registrytest.Gate(http.MethodGet, `/tags/list$`, 3)
	reg := registrytest.New(t, registrytest.WithFaults(gate))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list := func(repo string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, reg.URL+"/v2/"+repo+"/tags/list", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	// Unmatched: answered at once, though the gate is closed.
	if resp, err := http.Get(reg.URL + "/v2/"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = list(fmt.Sprintf("r%d", i)) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("a request held at the gate: %v", err)
		}
	}
	if err := list("r3"); err != nil { // the gate stays open
		t.Fatal(err)
	}
	if !gate.Released() {
		t.Error("the gate let the requests through but says it never opened")
	}
	if got := gate.MaxInFlight(); got != 3 {
		t.Errorf("MaxInFlight %d, want 3", got)
	}
	if got := gate.Hits(); got != 4 {
		t.Errorf("Hits %d, want 4", got)
	}

}
