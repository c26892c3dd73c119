package heapfloor

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"
)

// childEnv marks the test binary run again by inChild.
const childEnv = "STAX_HEAPFLOOR_CHILD"

// inChild runs the calling test alone in a process of its own, with env
// in place of the user's GOGC and GOMEMLIMIT, and reports whether this is
// that process: what Raise sets is the process's, and make unit sets
// GOGC for the tests.
func inChild(t *testing.T, env ...string) bool {
	t.Helper()
	if os.Getenv(childEnv) != "" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=")
	})
	cmd.Env = append(cmd.Env, append(env, childEnv+"=1")...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("%s in a process of its own: %v\n%s", t.Name(), err, out)
	}
	return false
}

func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

var sink []byte

// churn allocates n bytes that are garbage at once, in 1 KiB blocks.
func churn(n int) {
	for range n >> 10 {
		sink = make([]byte, 1<<10)
	}
	sink = nil
}

func TestRaiseDefersTheFirstCollections(t *testing.T) {
	if !inChild(t) {
		return
	}
	runtime.GC()
	before := cycles()
	Raise(32 << 20)
	// 16 MiB of garbage over a heap of a few: four collections or more
	// at Go's own goal of 4 MiB, none under the floor.
	churn(16 << 20)
	if n := cycles() - before; n > 0 {
		t.Errorf("%d collections of 16 MiB of garbage under a floor of 32 MiB, want none", n)
	}
}

func TestRaiseStepsAsideOnceHalfTheFloorIsLive(t *testing.T) {
	if !inChild(t) {
		return
	}
	set := make(chan int, 64)
	adjusted = func(percent int) { set <- percent }
	Raise(16 << 20)
	runtime.GC()
	if p := waitAdjusted(t, set); p <= 100 {
		t.Fatalf("GOGC=%d after a collection of a small heap, want over 100 (the floor)", p)
	}
	live := make([][]byte, 0, 10)
	for range 10 {
		live = append(live, make([]byte, 1<<20))
	}
	runtime.GC()
	if p := waitAdjusted(t, set); p != 100 {
		t.Fatalf("GOGC=%d with 10 MiB live under a floor of 16 MiB, want 100", p)
	}
	runtime.KeepAlive(live)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC=%d once stepped aside, want 100", p)
	}
}

// waitAdjusted returns the percent Raise set after a collection. The
// finalizer that sets it runs on a goroutine of the runtime's, some time
// after the collection; the deadline only fails a test that would hang.
func waitAdjusted(t *testing.T, set <-chan int) int {
	t.Helper()
	select {
	case p := <-set:
		return p
	case <-time.After(30 * time.Second):
		t.Fatal("no adjustment 30 s after a collection")
		return 0
	}
}

func TestRaiseLeavesTheUsersSettings(t *testing.T) {
	for _, env := range []string{"GOGC=100", "GOMEMLIMIT=1GiB"} {
		t.Run(strings.Split(env, "=")[0], func(t *testing.T) {
			if !inChild(t, env) {
				return
			}
			Raise(32 << 20)
			if p := debug.SetGCPercent(100); p != 100 {
				t.Errorf("GOGC=%d after Raise with %s set, want 100", p, env)
			}
		})
	}
}

// The goal Raise sets is the floor, not past it: Go's goal counts the
// stacks and globals with the live heap (live + (live+stacks+globals) *
// GOGC/100), and a percent from the live heap alone sets it past the
// floor by GOGC/100 of them.
func TestRaiseSetsTheGoalAtTheFloor(t *testing.T) {
	if !inChild(t) {
		return
	}
	set := make(chan int, 64)
	adjusted = func(percent int) { set <- percent }
	const floor = 16 << 20
	Raise(floor)
	// 5 MiB live: a percent of about 220, under the most Raise sets.
	live := make([][]byte, 0, 5)
	for range 5 {
		live = append(live, make([]byte, 1<<20))
	}
	runtime.GC()
	if p := waitAdjusted(t, set); p <= 100 {
		t.Fatalf("GOGC=%d with 5 MiB live under a floor of 16 MiB, want over 100", p)
	}
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(goal)
	if g := goal[0].Value.Uint64(); g > floor {
		t.Errorf("heap goal %d with 5 MiB live under a floor of %d, want no more than the floor", g, floor)
	}
	runtime.KeepAlive(live)
}
