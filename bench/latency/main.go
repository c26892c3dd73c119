// Command latency is a reverse proxy that delays every request by a fixed
// time and counts the requests, so that a benchmark on loopback sees what a
// registry one round trip away costs: bench/latency.sh puts it in front of
// docker-registry.
//
//	go run ./bench/latency -target http://127.0.0.1:5000 -delay 50ms
//
// The first line on stdout is the address it listens on. GET /_count answers
// the number of requests proxied so far; it is not proxied, delayed or
// counted itself. -log writes the method and path of each request to stderr,
// to see which requests a job makes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// countPath is where the proxy answers its request count instead of
// forwarding; no registry API path starts with an underscore.
const countPath = "/_count"

// delayingProxy waits delay before it hands each request to next.
type delayingProxy struct {
	delay time.Duration
	// sleep waits d or until ctx is done; tests replace it so that no test
	// waits on a real clock.
	sleep    func(ctx context.Context, d time.Duration) error
	next     http.Handler
	requests atomic.Int64
	// log, when set, gets a line "METHOD PATH" for each counted request.
	log io.Writer
}

func newDelayingProxy(target *url.URL, delay time.Duration) *delayingProxy {
	return &delayingProxy{
		delay: delay,
		sleep: sleepContext,
		// The incoming Host header is kept, so that the URLs a registry
		// builds from it (upload locations) point back at the proxy.
		next: httputil.NewSingleHostReverseProxy(target),
	}
}

func (p *delayingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == countPath {
		fmt.Fprintln(w, p.requests.Load())
		return
	}
	p.requests.Add(1)
	if p.log != nil {
		fmt.Fprintf(p.log, "%s %s\n", r.Method, r.URL.Path)
	}
	if err := p.sleep(r.Context(), p.delay); err != nil {
		// The client went away while it waited; there is no one to answer.
		return
	}
	p.next.ServeHTTP(w, r)
}

func sleepContext(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	target := flag.String("target", "", "URL of the server to forward to, e.g. http://127.0.0.1:5000")
	delay := flag.Duration("delay", 50*time.Millisecond, "time each request waits before it is forwarded")
	logRequests := flag.Bool("log", false, "write the method and path of each request to stderr")
	flag.Parse()
	var log io.Writer
	if *logRequests {
		log = os.Stderr
	}
	if err := run(*listen, *target, *delay, log); err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(1)
	}
}

func run(listen, target string, delay time.Duration, log io.Writer) error {
	targetURL, err := url.Parse(target)
	if err != nil || targetURL.Scheme == "" || targetURL.Host == "" {
		return fmt.Errorf("-target %q is not a URL like http://127.0.0.1:5000", target)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	proxy := newDelayingProxy(targetURL, delay)
	proxy.log = log
	server := &http.Server{Handler: proxy, ReadHeaderTimeout: time.Minute}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(shutdown)
	}()
	if err := server.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
