// Package heapfloor keeps the garbage collector from running while a
// process's heap is small. Go collects first at 4 MiB and then at twice
// the live heap: a command that turns over 30 MB while it keeps 5 (an
// install of ten small packages) collects eight times, each pass taking a
// quarter of the CPU from work that is waiting to be done. With a floor,
// the heap grows to it before the first collection and is collected at it
// while less than half of it is live; past that, the collector runs as it
// would without one, so a process whose live heap is large peaks where it
// did. The Go compiler sets such a floor for itself
// (cmd/compile/internal/base.AdjustStartingHeap).
package heapfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// minHeap is the heap goal the runtime starts with at GOGC=100, and
// scales with GOGC (the runtime's heapMinimum).
const minHeap = 4 << 20

// adjusted, when set, is called after each adjustment, with the percent
// set: tests wait on it.
var adjusted func(percent int)

// Raise makes floor the heap goal while less than half of it is live.
// It changes nothing when the user set GOGC or GOMEMLIMIT, whose
// settings are theirs, or when floor is no more than the runtime's own
// minimum. Call it once a process: the binary's Execute does, before the
// command runs.
func Raise(floor uint64) {
	if floor <= minHeap || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	// The runtime's minimum scales with GOGC, and bounds the goal from
	// below: the percent is never set above what makes that minimum the
	// floor, or a small live heap would be given a goal past it.
	maxPercent := int(100 * floor / minHeap)
	debug.SetGCPercent(maxPercent)
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}
	afterEachGC(func() bool {
		metrics.Read(samples)
		var n [3]uint64
		for i, s := range samples {
			if s.Value.Kind() == metrics.KindUint64 {
				n[i] = s.Value.Uint64()
			}
		}
		live, base := n[0], n[0]+n[1]+n[2]
		percent, again := 100, false
		if live > 0 && 2*live < floor {
			// The goal is live + (live+stacks+globals)*percent/100:
			// floor, from what the collection found, or Go's own where
			// the stacks and globals take that past the floor.
			percent, again = max(100, min(maxPercent, int(100*(floor-live)/base))), true
		}
		debug.SetGCPercent(percent)
		if adjusted != nil {
			adjusted(percent)
		}
		return again
	})
}

// afterEachGC calls fn after each collection, as long as it returns true.
// It runs as the finalizer of an object nothing references, which each
// collection finds unreachable, and which fn's true sets again. The
// object is larger than the runtime's tiny allocations, which share a
// block and would be finalized together.
func afterEachGC(fn func() bool) {
	type block [32]byte
	var finalize func(*block)
	finalize = func(b *block) {
		if fn() {
			runtime.SetFinalizer(b, finalize)
		}
	}
	runtime.SetFinalizer(new(block), finalize)
}
