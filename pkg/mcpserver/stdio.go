package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes is the longest line StdioTransport reads as one
// message when MaxMessageBytes is zero: the SDK's own default.
const DefaultMaxMessageBytes = mcp.DefaultMaxLineLength

// maxSafeID is the largest integer a JSON number carries exactly through
// a float64, which is how the SDK decodes ids and how most clients hold
// them: a larger id would be answered with a different number.
const maxSafeID = 1 << 53

// StdioTransport is the stdio transport of the MCP specification: one
// JSON-RPC message a line on Reader, answers on Writer.
//
// Unlike the SDK's transports, which end the session at the first line
// that does not decode, it answers a line that is not a JSON-RPC 2.0
// message with a JSON-RPC error, a parse error (-32700) when the line is
// not JSON and an invalid request (-32600) when it is JSON of the wrong
// shape, and goes on to the next line. A client that sends one bad message
// thus learns why, instead of losing the server. The error carries the
// request's id when it has a valid one, else null. Batches, which MCP
// dropped in its 2025-06-18 revision, are invalid requests; so is a line
// longer than MaxMessageBytes, which is skipped without being held in
// memory.
type StdioTransport struct {
	// Reader is closed with the connection when it is an io.Closer.
	Reader io.Reader
	// Writer is never closed: the server's stdout outlives the session.
	Writer io.Writer
	// MaxMessageBytes bounds a line; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxMessageBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	c := &lineConn{
		reader:   t.Reader,
		writer:   t.Writer,
		incoming: make(chan readResult),
		pending:  map[jsonrpc.ID]bool{},
		answered: make(chan struct{}, 1),
		closed:   make(chan struct{}),
	}
	go c.readLines(limit)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is the mcp.Connection of a StdioTransport.
type lineConn struct {
	reader io.Reader

	writeMu sync.Mutex // one message a Write, whole
	writer  io.Writer

	// incoming carries the messages of the read loop; Read takes them.
	// The loop waits for each to be taken, so at most one line is held.
	incoming chan readResult

	// pending are the requests read and not yet answered. At the end of
	// the input the read loop waits for them before it reports the end:
	// the SDK cancels the requests in flight when reading ends, and a
	// client that writes its requests and closes its end, as a script
	// does, would get no answers. answered is signalled as they go.
	pendingMu sync.Mutex
	pending   map[jsonrpc.ID]bool
	answered  chan struct{}

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// readLines reads the input until it ends or the connection closes,
// passing valid messages to Read and answering the others. It runs in its
// own goroutine so that Close unblocks Read even when the input cannot be
// interrupted (a terminal's stdin).
func (c *lineConn) readLines(limit int) {
	in := bufio.NewReaderSize(c.reader, 64<<10)
	for {
		line, tooLong, err := readLine(in, limit)
		switch {
		case tooLong:
			err = errors.Join(err, c.reject(&rejection{code: jsonrpc.CodeInvalidRequest,
				message: fmt.Sprintf("Invalid Request: the message is longer than %d bytes", limit)}))
		case len(line) > 0:
			msg, rej := parseMessage(line)
			if rej != nil {
				err = errors.Join(err, c.reject(rej))
				break
			}
			c.track(msg)
			select {
			case c.incoming <- readResult{msg: msg}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			if !c.waitForAnswers() {
				return
			}
			select {
			case c.incoming <- readResult{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// track records a request that will be answered, and forgets one the
// client cancels: the server does not answer a cancelled request.
func (c *lineConn) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	if req.IsCall() {
		c.pendingMu.Lock()
		c.pending[req.ID] = true
		c.pendingMu.Unlock()
		return
	}
	if req.Method == "notifications/cancelled" {
		var params struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &params) == nil {
			if id, err := jsonrpc.MakeID(params.RequestID); err == nil {
				c.answer(id)
			}
		}
	}
}

// answer forgets a pending request.
func (c *lineConn) answer(id jsonrpc.ID) {
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	if c.pending[id] {
		delete(c.pending, id)
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
}

// waitForAnswers waits until no request is pending; false if the
// connection closed first.
func (c *lineConn) waitForAnswers() bool {
	for {
		c.pendingMu.Lock()
		n := len(c.pending)
		c.pendingMu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return false
		}
	}
}

// readLine reads one line without its "\n" or "\r\n". A line longer than
// limit is read to its end but not kept: tooLong reports it. err is the
// reader's, io.EOF at the end of the input, with the last line if it had
// no newline.
func readLine(in *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := in.ReadSlice('\n')
		if !tooLong {
			// Two more bytes are kept for the "\r\n" that ends the line.
			if len(line)+len(chunk) > limit+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > limit {
			tooLong, line = true, nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			line = nil // blank lines separate nothing and are skipped
		}
		return line, tooLong, err
	}
}

// A rejection is the JSON-RPC error answering a line that is not a valid
// message.
type rejection struct {
	id      json.RawMessage // nil for null
	code    int64
	message string
}

func (c *lineConn) reject(r *rejection) error {
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: r.code, Message: r.message}})
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

// parseMessage decodes one line, or says why it is not a JSON-RPC 2.0
// message the SDK can take. Nothing here recurses on the input: the
// standard decoder refuses nesting past its depth limit, and the SDK's
// decoder, given only lines that passed it, applies its own.
func parseMessage(line []byte) (jsonrpc.Message, *rejection) {
	invalid := func(id json.RawMessage, format string, args ...any) *rejection {
		return &rejection{id: id, code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: " + fmt.Sprintf(format, args...)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax):
			return nil, &rejection{code: jsonrpc.CodeParseError, message: "Parse error: " + err.Error()}
		case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
			return nil, invalid(nil, "batches are not supported (MCP removed them in 2025-06-18); send one message a line")
		default:
			return nil, invalid(nil, "a message is a JSON object")
		}
	}
	if fields == nil {
		return nil, invalid(nil, "a message is a JSON object, not null")
	}

	rawID, hasID := fields["id"]
	idValid := hasID && validID(rawID)
	_, isRequest := fields["method"]
	// An error carries the id of the request it answers, when that can be
	// told. A response-shaped message gets null, lest the client take the
	// error for the answer to one of its own requests.
	var echo json.RawMessage
	if isRequest && idValid {
		echo = bytes.TrimSpace(rawID)
	}

	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, invalid(echo, `"jsonrpc" must be "2.0"`)
	}
	switch {
	case hasID && string(bytes.TrimSpace(rawID)) == "null":
		return nil, invalid(nil, "the id must not be null")
	case hasID && !idValid:
		return nil, invalid(nil, "the id must be a string or an integer between -2^53 and 2^53")
	}
	if isRequest {
		var method string
		if err := json.Unmarshal(fields["method"], &method); err != nil {
			return nil, invalid(echo, `"method" must be a string`)
		}
	} else {
		_, hasResult := fields["result"]
		_, hasError := fields["error"]
		if !hasID || hasResult == hasError {
			return nil, invalid(nil, `a message has a "method" (a request or notification), or an "id" and one of "result" or "error" (a response)`)
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, invalid(echo, "%v", err)
	}
	return msg, nil
}

// validID reports whether raw is an id the SDK answers unchanged: a string,
// or an integer that a float64 holds exactly.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && -maxSafeID <= n && n <= maxSafeID
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answer(resp.ID)
	}
	return err
}

// writeLine writes data and a newline. It writes after Close too: when the
// input ends, the SDK closes the connection and then sends the answers of
// the requests still in flight, which the client is waiting for.
func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.writer.Write(append(data, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if rc, ok := c.reader.(io.Closer); ok {
			c.closeErr = rc.Close()
		}
	})
	return c.closeErr
}

// SessionID implements mcp.Connection; stdio has no sessions.
func (c *lineConn) SessionID() string { return "" }
