package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// In-daemon callers of the dispatcher: the agent panel's conversations and
// agent_watch triggers call tools through exactly the path an MCP client's
// tools/call takes (validation, classification, approval gate, command
// budget, audit), under a real session of their own.

// ErrNoSession: CallTool needs the session the call runs for.
var ErrNoSession = errors.New("mcpserver: CallTool needs a session")

// CodeTriggerRefused is the code of a mutating or sensitive call an
// automatic trigger attempted (the approval engine's trigger_refused).
const CodeTriggerRefused = "trigger_refused"

// CallTool runs one tool call for sess through the dispatcher and audits
// it like an MCP client's call. Tool failures are results with IsError;
// the error is only for a missing session.
func (s *Server) CallTool(ctx context.Context, sess *session.Session, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if sess == nil {
		return nil, ErrNoSession
	}
	return s.call(ctx, sess, tool, args), nil
}

// TriggerCheck is the approval engine's verdict on an automatic call
// (approval.Engine.RequireForTrigger): nil lets it run.
type TriggerCheck func(ctx context.Context, c *Call) *tools.Error

// CallTrigger is CallTool for an automatic trigger (agent_watch): only a
// read-only mode may run. A mutating or sensitive mode is refused here,
// before check and before the dispatcher, whatever check or the policy
// says; then check (the approval engine) must let it through.
func (s *Server) CallTrigger(ctx context.Context, sess *session.Session, tool string, args json.RawMessage, check TriggerCheck) (*mcp.CallToolResult, error) {
	if sess == nil {
		return nil, ErrNoSession
	}
	tc, terr := tools.Parse(tool, args)
	if terr != nil {
		return errorResult(terr), nil
	}
	if tc.Mode.Class != tools.ReadOnly {
		return errorResult(tools.Errorf(CodeTriggerRefused, "%s is %s; automatic triggers only run read-only modes", tc.Mode.Key(), tc.Mode.Class)), nil
	}
	if check == nil {
		return errorResult(tools.Errorf(CodeTriggerRefused, "%s: no trigger check configured; refused", tc.Mode.Key())), nil
	}
	if e := check(ctx, &Call{Call: tc, Session: sess}); e != nil {
		return errorResult(e), nil
	}
	return s.call(ctx, sess, tool, args), nil
}

func (s *Server) call(ctx context.Context, sess *session.Session, tool string, args json.RawMessage) *mcp.CallToolResult {
	start := time.Now()
	res, key, class := s.dispatch(ctx, sess, tool, args)
	d := time.Since(start)
	s.log.Debug("tool call", "tool", key, "session", sess.ID(), "args_bytes", len(args), "is_error", res.IsError, // Debug: as toolHandler
		"ms", d.Milliseconds(), "in_daemon", true)
	if s.opts.Audit != nil {
		if err := s.opts.Audit(sess.ID(), key, class, d, res.IsError); err != nil {
			s.log.Error("audit log write failed", "tool", key, "err", err)
		}
	}
	return res
}

// ToolText is a result's text content, joined.
func ToolText(res *mcp.CallToolResult) string {
	var out string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			if out != "" {
				out += "\n"
			}
			out += t.Text
		}
	}
	return out
}
