package registrytest

import (
	"net/http"
	"sync"
)

// Gate holds the requests it matches until n of them are held at once,
// then lets those and every later one through to the registry: it proves
// a client sends n requests concurrently, without timing anything. A
// client that never has n such requests in flight waits until it gives up
// (its context ends) or the registry stops, and the held request is
// answered 503. A test asserting that a client asks concurrently gives
// the client's run a deadline, which the gate not opening fails; Released
// says whether it opened, and MaxInFlight checks that the client stayed
// within its bound. A Gate takes every matching request (Times does not
// apply).
func Gate(method, path string, n int) *Fault {
	f := newFault("gate", method, path)
	f.left.Store(-1)
	f.gate = &gate{want: n, open: make(chan struct{})}
	return f
}

// MaxInFlight returns the most requests of a Gate fault served at once so
// far, held or passed through; 0 for other faults.
func (f *Fault) MaxInFlight() int {
	if f.gate == nil {
		return 0
	}
	f.gate.mu.Lock()
	defer f.gate.mu.Unlock()
	return f.gate.most
}

// Released reports whether a Gate fault has opened: whether n of its
// requests were in flight at once.
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

type gate struct {
	want int
	open chan struct{}

	mu       sync.Mutex
	inFlight int
	most     int
	opened   bool
}

// serve holds req until the gate opens (or the client or the registry
// gives up), then lets next answer it.
func (g *gate) serve(w http.ResponseWriter, req *http.Request, next http.Handler, quit <-chan struct{}) {
	g.mu.Lock()
	g.inFlight++
	g.most = max(g.most, g.inFlight)
	if !g.opened && g.inFlight >= g.want {
		g.opened = true
		close(g.open)
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	select {
	case <-g.open:
		next.ServeHTTP(w, req)
	case <-req.Context().Done():
		writeError(w, http.StatusServiceUnavailable)
	case <-quit:
		writeError(w, http.StatusServiceUnavailable)
	}
}
