package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestDelayingProxyDelaysCountsAndForwards(t *testing.T) {
	t.Parallel()
	var backendHits atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		backendHits.Add(1)
		io.WriteString(w, "from backend "+r.URL.Path)
	}))
	defer backend.Close()
	target, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}

	const delay = 50 * time.Millisecond
	p := newDelayingProxy(target, delay)
	var log strings.Builder
	p.log = &log
	var slept []time.Duration
	var hitsWhenSleeping []int64
	p.sleep = func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		hitsWhenSleeping = append(hitsWhenSleeping, backendHits.Load())
		return nil
	}
	front := httptest.NewServer(p)
	defer front.Close()

	if got := get(t, front.URL+"/v2/"); got != "from backend /v2/" {
		t.Errorf("GET /v2/ through the proxy = %q, want the backend's answer", got)
	}
	if len(slept) != 1 || slept[0] != delay {
		t.Fatalf("the proxy slept %v for one request, want [%v]", slept, delay)
	}
	if hitsWhenSleeping[0] != 0 {
		t.Errorf("the backend had %d requests when the proxy slept, want the delay before forwarding", hitsWhenSleeping[0])
	}
	if got := strings.TrimSpace(get(t, front.URL+countPath)); got != "1" {
		t.Errorf("GET %s = %q, want 1", countPath, got)
	}
	if got := log.String(); got != "GET /v2/\n" {
		t.Errorf("request log = %q, want the one proxied request", got)
	}
	if len(slept) != 1 || backendHits.Load() != 1 {
		t.Errorf("GET %s slept %d times and reached the backend %d times, want neither", countPath, len(slept)-1, backendHits.Load()-1)
	}
}

func TestDelayingProxyDropsRequestWhoseClientLeft(t *testing.T) {
	t.Parallel()
	var backendHits atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { backendHits.Add(1) }))
	defer backend.Close()
	target, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := newDelayingProxy(target, time.Hour)
	p.sleep = func(context.Context, time.Duration) error { return context.Canceled }

	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v2/", nil))
	if backendHits.Load() != 0 {
		t.Errorf("a request whose wait was cancelled reached the backend")
	}
	if got := p.requests.Load(); got != 1 {
		t.Errorf("requests = %d, want 1", got)
	}
}

func get(t *testing.T, rawURL string) string {
	t.Helper()
	resp, err := http.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
