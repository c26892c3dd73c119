package filetest

import (
	"testing"
	"time"
)

// Finishes runs f and fails the test if f has not returned when the
// test's deadline is near, so that code that blocks forever (reading a
// named pipe, say) fails its test instead of hanging the run until the
// test binary is killed. Without a deadline (go test -timeout 0) it waits.
// f runs on another goroutine: it reports with t.Error, never t.Fatal.
func Finishes(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	var expired <-chan time.Time
	if tt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := tt.Deadline(); ok {
			// Fail with time to spare for the report and the cleanups.
			timer := time.NewTimer(time.Until(deadline) * 9 / 10)
			defer timer.Stop()
			expired = timer.C
		}
	}
	select {
	case <-done:
	case <-expired:
		t.Fatalf("%s did not return before the test's deadline: it blocks", what)
	}
}
