package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// methodSetLevel is the request with which a client asks for log
// notifications.
const methodSetLevel = "logging/setLevel"

// logNewProblems logs the problems not logged before, to the server's
// logger and to every client, and forgets those gone, so that a skill
// that breaks again is logged again.
func (s *Server) logNewProblems(msgs []string) {
	s.mu.Lock()
	var fresh []string
	now := map[string]bool{}
	for _, m := range msgs {
		now[m] = true
		if !s.reported[m] {
			fresh = append(fresh, m)
		}
	}
	s.reported = now
	s.mu.Unlock()
	for _, m := range fresh {
		s.opts.Logger.Warn(m)
		for ss := range s.mcp.Sessions() {
			logTo(context.Background(), ss, m)
		}
	}
}

// replayProblems sends a client that asks for log notifications the
// problems found before it asked: a skill that cannot load is never lost
// because the client connected after it broke.
func (s *Server) replayProblems(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != methodSetLevel {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return res, err
		}
		for _, m := range problems(s.current()) {
			logTo(ctx, ss, m)
		}
		return res, err
	}
}

// logTo sends a warning log notification, if the client asked for them.
// The protocol is retiring log notifications, but clients in use still
// show them, and they are how a runtime surfaces a skill it cannot load.
func logTo(ctx context.Context, ss *mcp.ServerSession, msg string) {
	//lint:ignore SA1019 see above: clients in use still show log notifications
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "stax", Data: msg})
}
