package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/agent"
)

// serveStdio runs a server of f on a StdioTransport over pipes and returns
// the client's ends: lines written to in, answers read from out. done
// receives what Run returned.
func serveStdio(t *testing.T, f fixture, maxMessageBytes int) (in *io.PipeWriter, out *bufio.Reader, done <-chan error) {
	t.Helper()
	rt, _ := agent.Lookup("claude-code")
	srv, err := New(Options{Runtime: rt, Project: f.project, Home: f.home})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		ran <- srv.Run(ctx, &StdioTransport{Reader: inR, Writer: outW, MaxMessageBytes: maxMessageBytes})
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return inW, bufio.NewReader(outR), ran
}

type answer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// exchange writes line and returns the next answer that is not a
// notification.
func exchange(t *testing.T, in io.Writer, out *bufio.Reader, line string) answer {
	t.Helper()
	if _, err := io.WriteString(in, line+"\n"); err != nil {
		t.Fatalf("writing to the server: %v", err)
	}
	for {
		text, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the answer to %.60q: %v (the server ended?)", line, err)
		}
		var a answer
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			t.Fatalf("the server wrote %q: %v", text, err)
		}
		if a.Method == "" {
			return a
		}
	}
}

const initializeLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestStdioTransportRefusesLongLineAndGoesOn sends a line longer than the
// limit: it is answered with an invalid request error, and the server
// answers the next line.
func TestStdioTransportRefusesLongLineAndGoesOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{"a/SKILL.md": skillMD("a", "A skill", "a\n")})
	in, out, done := serveStdio(t, f, 4096)
	if a := exchange(t, in, out, initializeLine); a.Error != nil {
		t.Fatalf("initialize: %+v", a.Error)
	}
	long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`
	a := exchange(t, in, out, long)
	if a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "null" || !strings.Contains(a.Error.Message, "longer than 4096 bytes") {
		t.Errorf("a 1 MiB line under a 4096-byte limit was answered %s %+v", a.ID, a.Error)
	}
	// A line of exactly the limit is a message.
	line := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"`
	line += strings.Repeat("y", 4096-len(line)-3) + `"}}`
	if a := exchange(t, in, out, line); string(a.ID) != "2" || a.Error != nil {
		t.Errorf("a line of 4096 bytes was answered %s %+v", a.ID, a.Error)
	}
	if a := exchange(t, in, out, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); string(a.ID) != "3" || !strings.Contains(string(a.Result), `"ListSkills"`) {
		t.Errorf("tools/list after a long line: %s %+v %s", a.ID, a.Error, a.Result)
	}
	in.Close()
	if err := <-done; err != nil {
		t.Errorf("Run after the input ended = %v, want nil", err)
	}
}

// TestReadLineMemoryIsBoundedByLimit reads a 4 MiB line under a 1 KiB
// limit: what is allocated stays near the reader's buffer, not the line.
// Not parallel: it reads the process's allocation counter.
func TestReadLineMemoryIsBoundedByLimit(t *testing.T) {
	const size = 4 << 20
	input := strings.Repeat("[", size) + "\n" + `{"jsonrpc":"2.0","method":"x"}` + "\n"
	in := bufio.NewReaderSize(strings.NewReader(input), 64<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, tooLong, err := readLine(in, 1024)
	runtime.ReadMemStats(&after)
	if !tooLong || line != nil || err != nil {
		t.Fatalf("readLine of a 4 MiB line = %d bytes, tooLong %v, %v; want tooLong", len(line), tooLong, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > size/8 {
		t.Errorf("reading a %d-byte line under a 1 KiB limit allocated %d bytes", size, grew)
	}
	line, tooLong, err = readLine(in, 1024)
	if string(line) != `{"jsonrpc":"2.0","method":"x"}` || tooLong || err != nil {
		t.Errorf("the line after the long one = %q, %v, %v", line, tooLong, err)
	}
	if _, _, err := readLine(in, 1024); err != io.EOF {
		t.Errorf("at the end of the input readLine = %v, want io.EOF", err)
	}
}

// TestStdioTransportDeepNesting sends a line of nested arrays as deep as
// the default limit allows a line to be long (a few MB here): it is a
// parse error, without exhausting the stack, and the server goes on.
func TestStdioTransportDeepNesting(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in, out, _ := serveStdio(t, f, 0)
	for _, line := range []string{
		strings.Repeat("[", 2<<20),
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat(`{"a":`, 1<<20) + "1" + strings.Repeat("}", 1<<20) + "}}",
	} {
		if a := exchange(t, in, out, line); a.Error == nil || a.Error.Code != -32700 || string(a.ID) != "null" {
			t.Errorf("%d levels of nesting answered %s %+v, want a parse error", len(line)/5, a.ID, a.Error)
		}
	}
	// Nesting the standard decoder takes but the SDK's does not is an
	// invalid request, with the request's id.
	mid := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "}}"
	if a := exchange(t, in, out, mid); a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "2" {
		t.Errorf("5000 levels of nesting answered %s %+v, want an invalid request with id 2", a.ID, a.Error)
	}
	if a := exchange(t, in, out, initializeLine); a.Error != nil || string(a.ID) != "0" {
		t.Errorf("initialize after deep nesting: %s %+v", a.ID, a.Error)
	}
}

// TestParseMessageResponses checks that a client's response to a
// server request is taken, not refused, and that an error for a
// response-shaped line never carries its id.
func TestParseMessageResponses(t *testing.T) {
	t.Parallel()
	if _, rej := parseMessage([]byte(`{"jsonrpc":"2.0","id":"s1","result":{}}`)); rej != nil {
		t.Errorf("a response was refused: %+v", rej)
	}
	if _, rej := parseMessage([]byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}`)); rej != nil {
		t.Errorf("an error response was refused: %+v", rej)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":7,"error":"no"}`,
		`{"jsonrpc":"2.0","result":{}}`,
	} {
		_, rej := parseMessage([]byte(line))
		if rej == nil || rej.code != -32600 || rej.id != nil {
			t.Errorf("%s: rejection = %+v, want an invalid request with a null id", line, rej)
		}
	}
}

// TestStdioTransportAnswersBeforeEOF sends a request and ends the input at
// once, as `printf ... | stax mcp` does: the answer is still written.
func TestStdioTransportAnswersBeforeEOF(t *testing.T) {
	t.Parallel()
	in, out, done := serveStdio(t, newFixture(t), 0)
	go func() {
		io.WriteString(in, `{"jsonrpc":"2.0","id":"bad"`+"\n"+initializeLine+"\n")
		in.Close()
	}()
	var got []answer
	for {
		text, err := out.ReadString('\n')
		if err != nil {
			break
		}
		var a answer
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			t.Fatalf("the server wrote %q: %v", text, err)
		}
		got = append(got, a)
	}
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
	if len(got) != 2 || got[0].Error == nil || got[0].Error.Code != -32700 || string(got[1].ID) != "0" || got[1].Error != nil {
		t.Errorf("answers to a bad line and initialize, then the end of the input = %+v, want a parse error and the initialize result", got)
	}
}
