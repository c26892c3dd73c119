package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rawMCP is a client of `stax mcp` over stdio that writes lines as they
// are, malformed ones included, and reads the server's answers.
type rawMCP struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan string
	done   chan int
	stderr *lockedBuffer
}

// startRawMCP runs `stax mcp` in this process on pipes.
func startRawMCP(t *testing.T, args ...string) *rawMCP {
	t.Helper()
	project, home := mcpFixture(t)
	useHome(t)
	t.Setenv("HOME", home)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &rawMCP{t: t, in: inW, lines: make(chan string), done: make(chan int, 1), stderr: &lockedBuffer{}}
	go func() {
		c.done <- executeTest(t, ctx, append([]string{"mcp", "--dir", project}, args...), &IOStreams{In: inR, Out: outW, ErrOut: c.stderr})
		outW.Close()
	}()
	// The server's lines are read in the background so that a server that
	// exits is seen as the end of its output, not as a hung read.
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-c.done
		for range c.lines {
		}
	})
	return c
}

func (c *rawMCP) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("writing %.80q: %v (stax mcp exited?)\n%s", line, err, c.stderr.String())
	}
}

// rpcResponse is an answer of the server, a result or an error.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next is the next message of the server that is not a notification.
func (c *rawMCP) next(what string) rpcResponse {
	c.t.Helper()
	// The timeout only turns a hang into a failure; the answer is awaited
	// on the server's output, not on time.
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				select {
				case code := <-c.done:
					c.done <- code
					c.t.Fatalf("%s: stax mcp ended its output (exit %d) instead of answering\n%s", what, code, c.stderr.String())
				default:
					c.t.Fatalf("%s: stax mcp ended its output instead of answering\n%s", what, c.stderr.String())
				}
			}
			var m struct {
				Method *string `json:"method"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				c.t.Fatalf("%s: the server wrote a line that is not JSON: %v\n%s", what, err, line)
			}
			if m.Method != nil {
				continue // a notification
			}
			var r rpcResponse
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				c.t.Fatalf("%s: %v\n%s", what, err, line)
			}
			if r.ID == nil {
				c.t.Fatalf("%s: the answer has no id member (an error answer has \"id\": null): %s", what, line)
			}
			return r
		case <-timeout.C:
			c.t.Fatalf("%s: no answer from stax mcp\n%s", what, c.stderr.String())
		}
	}
}

// TestMCPStdioAnswersMalformedLinesAndGoesOn sends the server lines that
// are not valid JSON-RPC requests, each followed by a valid request: every
// bad line is answered with a JSON-RPC error, and the server goes on
// answering the good ones.
func TestMCPStdioAnswersMalformedLinesAndGoesOn(t *testing.T) {
	c := startRawMCP(t)
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	for i, tc := range []struct {
		name, line string
		code       int
		id         string // the id the error answer carries
	}{
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":`, -32700, "null"},
		{"an empty array", `[]`, -32600, "null"},
		{"a batch", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, "null"},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":3,"method":"ping"}`, -32600, "3"},
		{"no jsonrpc member", `{"id":"x","method":"ping"}`, -32600, `"x"`},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"a null id on a request", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
		{"id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, "null"},
		{"an id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "null"},
		{"deep nesting", `{"jsonrpc":"2.0","id":4,"method":"ping","params":` + deep + `}`, -32700, "null"},
		{"deep nesting alone", deep, -32700, "null"},
		{"binary", "\x00\x01\xfe\xff\x1b[2J\x7f", -32700, "null"},
		{"a string", `"ping"`, -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"a numeric method", `{"jsonrpc":"2.0","id":5,"method":7}`, -32600, "5"},
		{"neither method nor result", `{"jsonrpc":"2.0","id":6}`, -32600, "null"},
		{"two values on a line", `{"jsonrpc":"2.0","id":7,"method":"ping"} {}`, -32700, "null"},
	} {
		c.send(tc.line)
		r := c.next(tc.name)
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
			t.Errorf("%s: answer = id %s error %+v, want id %s and code %d", tc.name, r.ID, r.Error, tc.id, tc.code)
		}
		// The server still serves: the first good request initializes the
		// session, the next ones list the tools.
		id := fmt.Sprintf(`"after-%d"`, i)
		if i == 0 {
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
			if r := c.next("initialize"); string(r.ID) != id || r.Error != nil || !strings.Contains(string(r.Result), `"serverInfo"`) {
				t.Fatalf("initialize after %s: id %s error %+v result %s", tc.name, r.ID, r.Error, r.Result)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			continue
		}
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		if r := c.next("tools/list after " + tc.name); string(r.ID) != id || r.Error != nil || !strings.Contains(string(r.Result), `"name":"ListSkills"`) {
			t.Fatalf("tools/list after %s: id %s error %+v result %.200s", tc.name, r.ID, r.Error, r.Result)
		}
	}
	// Blank lines and CRLF endings are not errors.
	c.send("")
	c.send(`{"jsonrpc":"2.0","id":"crlf","method":"ping"}` + "\r")
	if r := c.next("ping with CRLF"); string(r.ID) != `"crlf"` || r.Error != nil {
		t.Errorf("ping after a blank line, ended with CRLF: id %s error %+v", r.ID, r.Error)
	}
	select {
	case code := <-c.done:
		t.Fatalf("stax mcp exited %d while its input was open\n%s", code, c.stderr.String())
	default:
	}
	// Closing stdin still ends the server, successfully.
	c.in.Close()
	if code := <-c.done; code != 0 {
		t.Errorf("stax mcp exited %d after stdin closed\n%s", code, c.stderr.String())
	}
	c.done <- 0
}

// startHTTPMCP runs `stax mcp --http ...` in this process with
// $STAX_MCP_TOKEN set to token and returns the URL it serves at, what it
// wrote to stderr up to then, and a function that stops it and returns
// its exit code and all of its stderr.
func startHTTPMCP(t *testing.T, token string, args ...string) (url, said string, stop func() (int, string)) {
	t.Helper()
	project, home := mcpFixture(t)
	useHome(t)
	t.Setenv("HOME", home)
	t.Setenv("STAX_MCP_TOKEN", token)
	errR, errW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- executeTest(t, ctx, append([]string{"mcp", "--dir", project}, args...), &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: errW})
		errW.Close()
	}()
	// A server that serves without saying where would hold the scan below
	// for ever: the failsafe stops it, which ends its stderr.
	failsafe := time.AfterFunc(30*time.Second, cancel)
	defer failsafe.Stop()
	var stderr strings.Builder
	lines := bufio.NewScanner(errR)
	for lines.Scan() {
		stderr.WriteString(lines.Text() + "\n")
		if m := regexp.MustCompile(`over MCP at http://\S+:(\d+)/`).FindStringSubmatch(lines.Text()); m != nil {
			url = "http://127.0.0.1:" + m[1] + "/"
			break
		}
	}
	said = stderr.String()
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		rest <- b.String()
	}()
	stopped := false
	stop = func() (int, string) {
		stopped = true
		cancel()
		code := <-done
		return code, said + <-rest
	}
	t.Cleanup(func() {
		if !stopped {
			stop()
		}
	})
	return url, said, stop
}

func mcpPost(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
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
	resp.Body.Close()
	return resp.StatusCode
}

// TestMCPHTTPBeyondLoopbackNeedsToken: --http on every interface is
// refused without a token, and with one it warns that the traffic is
// plain HTTP, asks every request for the token, and never prints it.
func TestMCPHTTPBeyondLoopbackNeedsToken(t *testing.T) {
	url, said, stop := startHTTPMCP(t, "", "--http", "0.0.0.0:0")
	if code, stderr := stop(); code != 1 || url != "" || !strings.Contains(stderr, "STAX_MCP_TOKEN") || !strings.Contains(said, "listen on 127.0.0.1") {
		t.Errorf("--http 0.0.0.0:0 without a token: exit %d, url %q, want exit 1 naming $STAX_MCP_TOKEN\n%s", code, url, stderr)
	}

	const token = "0123456789abcdef0123456789abcdef"
	url, said, stop = startHTTPMCP(t, token+"\n", "--http", "0.0.0.0:0")
	if url == "" || !strings.Contains(said, "warning: listening on ") || !strings.Contains(said, "plain HTTP") {
		stop()
		t.Fatalf("--http 0.0.0.0:0 with a token did not warn, or did not serve:\n%s", said)
	}
	if code := mcpPost(t, url, nil); code != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", code)
	}
	if code := mcpPost(t, url, map[string]string{"Authorization": "Bearer " + token}); code != http.StatusOK {
		t.Errorf("the token: status %d, want 200", code)
	}
	if code := mcpPost(t, url, map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("the token from a foreign origin: status %d, want 403", code)
	}
	code, stderr := stop()
	if code != 0 {
		t.Errorf("exit %d after the context ended\n%s", code, stderr)
	}
	if strings.Contains(stderr, token) {
		t.Errorf("stderr shows the token:\n%s", stderr)
	}
}

// TestMCPHTTPTokenFile reads the token from --token-file, and refuses the
// combinations that make no sense.
func TestMCPHTTPTokenFile(t *testing.T) {
	const token = "fedcba9876543210fedcba9876543210"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, said, stop := startHTTPMCP(t, "", "--http", "127.0.0.1:0", "--token-file", file)
	if url == "" || strings.Contains(said, "warning") {
		stop()
		t.Fatalf("--http 127.0.0.1:0 --token-file: did not serve, or warned:\n%s", said)
	}
	if code := mcpPost(t, url, map[string]string{"Authorization": "Bearer wrong"}); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: status %d, want 401", code)
	}
	if code := mcpPost(t, url, map[string]string{"Authorization": "Bearer " + token}); code != http.StatusOK {
		t.Errorf("the file's token: status %d, want 200", code)
	}
	if code, stderr := stop(); code != 0 || strings.Contains(stderr, token) {
		t.Errorf("exit %d, or the token on stderr:\n%s", code, stderr)
	}

	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		env  string
		args []string
		want string
	}{
		"a token in both places": {"x" + token, []string{"--http", "127.0.0.1:0", "--token-file", file}, "unset one"},
		"a token file for stdio": {"", []string{"--token-file", file}, "--token-file is for --http"},
		"an empty token file":    {"", []string{"--http", "127.0.0.1:0", "--token-file", empty}, "the token is empty"},
		"a token with a space":   {"two words", []string{"--http", "127.0.0.1:0"}, "not visible ASCII"},
	} {
		_, _, stop := startHTTPMCP(t, tc.env, tc.args...)
		if code, stderr := stop(); code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want 1 saying %q\n%s", name, code, tc.want, stderr)
		}
	}
}
