package registry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		status int
		header string
		want   time.Duration
		ok     bool
	}{
		{http.StatusTooManyRequests, "5", 5 * time.Second, true},
		{http.StatusTooManyRequests, "600", MaxRetryAfter, true},
		{http.StatusServiceUnavailable, now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{http.StatusTooManyRequests, now.Add(time.Hour).Format(http.TimeFormat), MaxRetryAfter, true},
		{http.StatusTooManyRequests, now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{http.StatusTooManyRequests, "soon", 0, false},
		{http.StatusTooManyRequests, "-1", 0, false},
		{http.StatusBadGateway, "5", 0, false},
	} {
		resp := &http.Response{StatusCode: tt.status, Header: http.Header{"Retry-After": {tt.header}}, Request: &http.Request{}}
		got, ok := retryAfter(resp, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%d %q: %v %v, want %v %v", tt.status, tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

// The real clock's wait ends with its context, however long it was.
func TestRealClockSleepEndsWithContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (realClock{}).Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep with a cancelled context: %v, want context.Canceled", err)
	}
}
