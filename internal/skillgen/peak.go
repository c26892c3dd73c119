package skillgen

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

const heapObjects = "/memory/classes/heap/objects:bytes"

// PeakHeap runs f and returns the most heap memory live objects (and
// garbage not yet collected) took while it ran, sampled every
// millisecond: a stand-in for peak RSS that a benchmark can compare
// between two sizes in one process.
func PeakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: heapObjects}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	var (
		mu   sync.Mutex
		peak = read()
		stop = make(chan struct{})
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	f()
	close(stop)
	<-done
	mu.Lock()
	defer mu.Unlock()
	return max(peak, read())
}
