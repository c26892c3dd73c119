package registrytest

import (
	"net/http"
	"sync"
)

// Together holds each request matching method and path until n of them
// are held at once, then lets them all reach the registry: it proves a
// client sends those n requests concurrently, without timing anything. A
// client that sends them one after another waits on the first until it
// gives up (its context ends) or the registry stops; that request then
// fails with 503, and Released reports false. It takes n requests.
func Together(method, path string, n int) *Fault {
	f := newFault("together", method, path).Times(n)
	f.gate = &gate{n: n, open: make(chan struct{})}
	return f
}

// Released reports whether a Together fault's requests were all held at
// once and let through.
func (f *Fault) Released() bool {
	if f.gate == nil {
		return false
	}
	select {
	case <-f.gate.open:
		return true
	default:
		return false
	}
}

// gate is the barrier of a Together fault.
type gate struct {
	n    int
	mu   sync.Mutex
	held int
	open chan struct{}
}

// wait holds req until the gate opens, and reports whether it did.
func (g *gate) wait(req *http.Request, quit <-chan struct{}) bool {
	g.mu.Lock()
	g.held++
	if g.held == g.n {
		close(g.open)
	}
	g.mu.Unlock()
	select {
	case <-g.open:
		return true
	case <-req.Context().Done():
	case <-quit:
	}
	return false
}
