package main

import (
	"context"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// The binary gives the collector the heap floor of the command it runs,
// before the command runs: a server's to stax mcp, which serves until its
// client leaves (here at once, on an empty stdin), and a command's to the
// others.
func TestHeapFloorOfTheCommandRun(t *testing.T) {
	t.Parallel()
	useHome(t)
	for _, c := range []struct {
		args []string
		want uint64
	}{
		{[]string{"version"}, commandHeapFloor},
		{[]string{"list", "--dir", t.TempDir()}, commandHeapFloor},
		{[]string{"mcp", "--dir", t.TempDir()}, serverHeapFloor},
	} {
		var floors []uint64
		env := testEnvOf(t).environment()
		env.heapFloor = func(floor uint64) { floors = append(floors, floor) }
		streams := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
		if code := executeIn(context.Background(), c.args, streams, env, nil); code != 0 {
			t.Fatalf("stax %v: exit %d", c.args, code)
		}
		if !slices.Equal(floors, []uint64{c.want}) {
			t.Errorf("stax %v set the heap floors %v, want %d", c.args, floors, c.want)
		}
	}
}

// The benchmarks that run stax in the test process (all but
// BenchmarkMCPPackageCold, which runs it as processes), whose collector
// is the test's (the registry's too), do not give it the binary's heap
// floor. The test runs in a process of its own without GOGC, which make
// unit sets and under which no floor is set.
func TestBenchmarksLeaveTheCollector(t *testing.T) {
	withoutGOGC := func(env []string) []string {
		return slices.DeleteFunc(env, func(kv string) bool {
			return strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=")
		})
	}
	if !inOwnProcess(t, withoutGOGC) {
		return
	}
	mustRun(t, "version")
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC=%d after the benchmarks' stax version, want 100", p)
	}
}
