package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/pkg/agent"
)

// serveHTTP runs ServeHTTP on a loopback port and returns its URL.
func serveHTTP(t *testing.T, opts HTTPOptions) string {
	t.Helper()
	rt, _ := agent.Lookup("claude-code")
	f := newFixture(t)
	srv, err := New(Options{Runtime: rt, Project: f.project, Home: f.home})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, ln, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/"
}

// post sends an initialize request with the given headers and returns
// the status and body.
func post(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeLine))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(body)
}

// TestHTTPRefusesForeignOrigins: a browser page of another origin (a DNS
// rebinding attack, or any site the user visits) is refused with 403;
// loopback origins and clients that send no Origin are served.
func TestHTTPRefusesForeignOrigins(t *testing.T) {
	t.Parallel()
	url := serveHTTP(t, HTTPOptions{})
	for _, origin := range []string{
		"http://evil.example", "https://evil.example:443", "http://attacker.test:8080", "null",
		"http://127.0.0.1.evil.example", "http://localhost.evil.example", "file://", "chrome-extension://abc",
		"http://user@evil.example", "not a url", "http://10.0.0.1:8080",
	} {
		if code, body := post(t, url, map[string]string{"Origin": origin}); code != http.StatusForbidden {
			t.Errorf("Origin %q: status %d, want 403\n%s", origin, code, body)
		}
	}
	for _, origin := range []string{"", "http://localhost:6274", "http://127.0.0.1:3000", "https://[::1]:8443", "http://LOCALHOST", "http://127.1.2.3"} {
		h := map[string]string{}
		if origin != "" {
			h["Origin"] = origin
		}
		if code, body := post(t, url, h); code != http.StatusOK || !strings.Contains(body, `"serverInfo"`) {
			t.Errorf("Origin %q: status %d, want 200 and an initialize result\n%s", origin, code, body)
		}
	}
}

// bearer is an http.RoundTripper that sends a bearer token.
type bearer struct{ token string }

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(req)
}

// TestHTTPToken: with a token, a request without it, or with another, is
// 401 with a Bearer challenge, and a client with it is served.
func TestHTTPToken(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token-0123456789"
	url := serveHTTP(t, HTTPOptions{Token: token})
	for name, auth := range map[string]string{
		"no Authorization":    "",
		"another token":       "Bearer s3cret-token-0123456780",
		"a prefix":            "Bearer s3cret",
		"a longer token":      "Bearer " + token + "x",
		"another scheme":      "Basic " + token,
		"the token alone":     token,
		"an empty token":      "Bearer ",
		"Bearer and no space": "Bearer" + token,
	} {
		h := map[string]string{}
		if auth != "" {
			h["Authorization"] = auth
		}
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeLine))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: status %d, WWW-Authenticate %q, want 401 and a Bearer challenge", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		if strings.Contains(string(body), token) {
			t.Errorf("%s: the answer contains the token: %s", name, body)
		}
	}
	if code, body := post(t, url, map[string]string{"Authorization": "bearer " + token}); code != http.StatusOK {
		t.Errorf("the token with a lower-case scheme: status %d\n%s", code, body)
	}
	// A foreign origin is refused even with the token: a page must not
	// use a token the browser was made to send.
	if code, _ := post(t, url, map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("a foreign origin with the token: status %d, want 403", code)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("a client with the token: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("tools/list with the token: %v", err)
	}
}

func TestCheckToken(t *testing.T) {
	t.Parallel()
	for token, ok := range map[string]bool{
		"0123456789abcdef":        true,
		"a.b-c_d~e+f/g=":          true,
		"":                        false,
		"with space":              false,
		"tab\there":               false,
		"line\n":                  false,
		"caf\u00e9":               false,
		strings.Repeat("x", 4096): true,
		strings.Repeat("x", 4097): false,
	} {
		if err := CheckToken(token); (err == nil) != ok {
			t.Errorf("CheckToken(%.20q) = %v, want ok %v", token, err, ok)
		}
		if err := CheckToken(token); err != nil && token != "" && strings.Contains(err.Error(), token) {
			t.Errorf("CheckToken's error shows the token: %v", err)
		}
	}
}

// TestHTTPRefusesMoreThanOneOrigin: Header.Get reads the first Origin
// only, so a loopback one followed by a foreign one must not pass. Two
// Host headers, the second of which the SDK's check would not see, are
// net/http's to refuse (400); that half is a guard of what the server
// relies on, not of stax's own check.
func TestHTTPRefusesMoreThanOneOrigin(t *testing.T) {
	t.Parallel()
	url := serveHTTP(t, HTTPOptions{})
	for _, origins := range [][]string{
		{"http://localhost:6274", "http://evil.example"},
		{"http://127.0.0.1:3000", "http://127.0.0.1:3000"},
	} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeLine))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header["Origin"] = origins
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin headers %q: status %d, want 403\n%s", origins, resp.StatusCode, body)
		}
	}

	// http.Client sends one Host header: two need a raw request.
	status := rawRequest(t, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"),
		"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: "+strconv.Itoa(len(initializeLine))+"\r\n\r\n"+initializeLine, nil)
	if !strings.Contains(status, " 400 ") && !strings.Contains(status, " 403 ") {
		t.Errorf("two Host headers: %q, want 400 or 403", status)
	}
}

// rawRequest writes head on a new connection to addr, then, while it waits
// for the status line of the answer, calls trickle every few milliseconds
// to send more (when not nil). A server that never answers fails the test
// after 30 s; a connection closed without an answer is "".
func rawRequest(t *testing.T, addr, head string, trickle func(net.Conn) error) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	if trickle != nil {
		go func() {
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if trickle(conn) != nil {
						return
					}
				}
			}
		}()
	}
	// Only a hang reaches this deadline.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("no answer in 30 s to %.40q", head)
	}
	return line
}

// TestHTTPCutsASlowBody: a client that sends its body a byte at a time,
// never finishing, is cut off once the body timeout passes, rather than
// holding its connection and a handler for ever.
func TestHTTPCutsASlowBody(t *testing.T) {
	t.Parallel()
	url := serveHTTP(t, HTTPOptions{BodyTimeout: 500 * time.Millisecond})
	head := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 1048576\r\n\r\n{"
	status := rawRequest(t, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"), head, func(c net.Conn) error {
		_, err := c.Write([]byte(" "))
		return err
	})
	if strings.Contains(status, " 200 ") {
		t.Errorf("a body that never ends: %q, want it cut", status)
	}
}

// TestHTTPCutsASlowBodyOfARefusedRequest: a request the guard refuses
// (a foreign Origin, no token) is answered only once net/http has drained
// its body, up to 256 KiB: the body timeout must bound that too, or a
// client sending a byte at a time holds the connection for ever.
func TestHTTPCutsASlowBodyOfARefusedRequest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, header, token, status string
	}{
		{name: "foreign origin", header: "Origin: http://evil.example\r\n", status: " 403 "},
		{name: "no token", token: strings.Repeat("k", 32), status: " 401 "},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url := serveHTTP(t, HTTPOptions{BodyTimeout: 500 * time.Millisecond, Token: c.token})
			head := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + c.header + "Content-Type: application/json\r\n" +
				"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"
			status := rawRequest(t, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"), head, func(c net.Conn) error {
				_, err := c.Write([]byte(" "))
				return err
			})
			if !strings.Contains(status, c.status) {
				t.Errorf("got %q, want%s", status, c.status)
			}
		})
	}
}
