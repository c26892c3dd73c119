package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// rawMCP is a client of `stax mcp` over stdio that writes lines as they
// are, malformed ones included, and reads the server's answers.
type rawMCP struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
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
		c.done <- Execute(ctx, append([]string{"mcp", "--dir", project}, args...), &IOStreams{In: inR, Out: outW, ErrOut: c.stderr})
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

// response is the next message that is not a notification.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

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
