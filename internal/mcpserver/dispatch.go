package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The dispatcher: every tools/call from every transport comes through
// toolHandler → dispatch.

func (s *Server) toolHandler(tool string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		sess := s.sessionFor(req.Session)
		res, key, class := s.dispatch(ctx, sess, tool, req.Params.Arguments)
		d := time.Since(start)
		// Debug: logs/audit.jsonl records every call already (AuditCall), and an
		// Info line here cost every call ~20 µs and two writes (the log file and
		// stderr) on the daemon's answer path.
		s.log.Debug("tool call", "tool", key, "session", sess.ID(), "args_bytes", len(req.Params.Arguments),
			"is_error", res.IsError, "ms", d.Milliseconds())
		if s.opts.Audit != nil {
			if err := s.opts.Audit(sess.ID(), key, class, d, res.IsError); err != nil {
				s.log.Error("audit log write failed", "tool", key, "err", err)
			}
		}
		return res, nil
	}
}

// dispatch validates the call, checks its classification and gate, runs
// it (composed with what its definition asks for: compose) and passes the
// result through the redaction gateway (Options.Redact), then fences the
// page text of what a handler answered (fence.go) when the mode's answers
// carry page text. It returns the result, and "tool.mode" and its class
// for the log.
func (s *Server) dispatch(ctx context.Context, sess *session.Session, tool string, raw json.RawMessage) (*mcp.CallToolResult, string, tools.Class) {
	res, mode, ran := s.route(ctx, sess, tool, raw)
	key, class := tool+".?", tools.Class("")
	if mode != nil {
		key, class = mode.Key(), mode.Class
	}
	res, ok := s.redactResult(sess.ID(), res)
	if ok && ran && mode != nil && mode.PageText() {
		res = s.fence(sess, res)
	}
	return withoutPage(res), key, class
}

// route is dispatch before redaction: the call's mode (nil when the call
// names none), and ran, that the answer is the handler's (not a refusal
// before it, nor still_processing).
func (s *Server) route(ctx context.Context, sess *session.Session, tool string, raw json.RawMessage) (res *mcp.CallToolResult, mode *tools.Mode, ran bool) {
	tc, terr := tools.Parse(tool, raw)
	if terr != nil {
		return errorResult(terr), nil, false
	}
	c := &Call{Call: tc, Session: sess, srv: s}
	h, ok := s.handler(tc.Mode)
	if !ok {
		return errorResult(tools.NotAvailable(tc.Mode, s.served())), tc.Mode, false
	}
	if s.opts.Scope != nil {
		if e := s.opts.Scope(ctx, c); e != nil {
			return errorResult(e), tc.Mode, false
		}
	}
	if tc.Mode.Class.Gated() {
		if e := s.opts.Gate(ctx, c); e != nil {
			return errorResult(e), tc.Mode, false
		}
	}
	run := s.compose(tc.Mode, h.run)
	if h.inline || h.quick && !c.Background {
		return s.invoke(ctx, run, c), tc.Mode, true
	}
	res, ran = s.runCommand(ctx, run, c)
	return res, tc.Mode, ran
}

// A Watcher follows the calls of the modes it watches (it reads their
// definitions: the session recorder watches the recorded ones, the action
// recorder those that drive the page). Begin runs before the handler; the
// function it returns runs after it, with the handler's answer.
type Watcher interface {
	Watches(m *tools.Mode) bool
	Begin(ctx context.Context, c *Call) (end func(v any, err error))
}

// compose is how a call of mode m runs: inside the watchers that watch m,
// the first added outermost, around the handler. (Redaction and fencing
// wrap the whole answer, in dispatch.)
func (s *Server) compose(m *tools.Mode, h Handler) Handler {
	s.mu.Lock()
	var ws []Watcher
	for _, w := range s.watches {
		if w.Watches(m) {
			ws = append(ws, w)
		}
	}
	s.mu.Unlock()
	if len(ws) == 0 {
		return h
	}
	return func(ctx context.Context, c *Call) (v any, err error) {
		ends := make([]func(any, error), 0, len(ws))
		returned := false
		defer func() {
			if !returned { // the handler panicked (invoke recovers it): the watchers see a failure
				v, err = nil, errPanicked
			}
			for i := len(ends) - 1; i >= 0; i-- {
				ends[i](v, err)
			}
		}()
		for _, w := range ws {
			ends = append(ends, w.Begin(ctx, c))
		}
		v, err = h(ctx, c)
		returned = true
		return v, err
	}
}

// errPanicked is what watchers see of a handler that panicked.
var errPanicked = errors.New("mcpserver: the handler panicked")

// runCommand starts the call as a session command and waits for it within
// its budget: past timeout_ms (or at once with background) it answers
// still_processing with the correlation id. A client that goes away does
// not stop the command; its result waits in the session. done reports
// that the answer is the command's.
func (s *Server) runCommand(ctx context.Context, h Handler, c *Call) (res *mcp.CallToolResult, done bool) {
	cmd, err := c.Session.Start(c.Mode.Tool, c.Mode.Name, func(cctx context.Context) any {
		return s.invoke(cctx, h, c)
	})
	if err != nil {
		return errorResult(&tools.Error{Code: tools.CodeInternal, Message: "the daemon is shutting down; retry in a moment", Retryable: true, RetryAfterMS: 1000}), false
	}
	if c.Background {
		s.keepHandoff(c.Session, cmd)
		return stillProcessing(cmd, 0), false
	}
	timer := time.NewTimer(time.Duration(c.TimeoutMS) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-cmd.Done():
		res, _ := cmd.Result()
		return res.(*mcp.CallToolResult), true
	case <-timer.C:
	case <-ctx.Done():
	}
	s.keepHandoff(c.Session, cmd) // the client collects it later, maybe from the next daemon
	return stillProcessing(cmd, c.TimeoutMS), false
}

// invoke runs a handler, turning its answer (or panic) into a result.
func (s *Server) invoke(ctx context.Context, h Handler, c *Call) (res *mcp.CallToolResult) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("tool handler panicked", "tool", c.Mode.Key(), "panic", fmt.Sprint(p))
			res = errorResult(tools.Errorf(tools.CodeInternal, "%s %s failed inside the daemon (a bug); the daemon log has details", c.Mode.Tool, c.Mode.Name))
		}
	}()
	v, err := h(ctx, c)
	if err != nil {
		return s.failure(c, err)
	}
	if r, ok := v.(*mcp.CallToolResult); ok {
		return r
	}
	return okResult(v)
}

func (s *Server) failure(c *Call, err error) *mcp.CallToolResult {
	var te *tools.Error
	if errors.As(err, &te) {
		return errorResult(te)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errorResult(&tools.Error{Code: tools.CodeTimeout, Message: fmt.Sprintf("%s %s ran out of time; retry, or narrow the request", c.Mode.Tool, c.Mode.Name), Retryable: true})
	}
	s.log.Error("tool handler failed", "tool", c.Mode.Key(), "err", err)
	return errorResult(tools.Errorf(tools.CodeInternal, "%s %s failed: %v", c.Mode.Tool, c.Mode.Name, err))
}

// Processing is the answer of a call still running.
type Processing struct {
	Status        string      `json:"status"` // still_processing
	CorrelationID string      `json:"correlation_id"`
	Tool          string      `json:"tool"`
	What          string      `json:"what"`
	Message       string      `json:"message"`
	RetryAfterMS  int         `json:"retry_after_ms"`
	NextAction    *tools.Next `json:"next_action"`
}

func stillProcessing(cmd *session.Command, waitedMS int) *mcp.CallToolResult {
	msg := fmt.Sprintf("%s %s runs in the background", cmd.Tool, cmd.What)
	if waitedMS > 0 {
		msg = fmt.Sprintf("%s %s is still running after %d ms", cmd.Tool, cmd.What, waitedMS)
	}
	return okResult(Processing{
		Status: "still_processing", CorrelationID: cmd.ID, Tool: cmd.Tool, What: cmd.What,
		Message:      msg + "; fetch its result with observe command_result",
		RetryAfterMS: 1000,
		NextAction:   &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "command_result", "correlation_id": cmd.ID}},
	})
}

// Result is a tool result: text for the model (compact and readable) and
// v (a JSON object) as structuredContent. An empty text carries v's compact
// JSON. Every handler that answers with text of its own uses it.
func Result(text string, v any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	if text == "" {
		text = string(raw)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(raw),
	}, nil
}

// okResult is Result with v's JSON as the text, or the internal error an
// unencodable answer is.
func okResult(v any) *mcp.CallToolResult {
	res, err := Result("", v)
	if err != nil {
		return errorResult(tools.Errorf(tools.CodeInternal, "%v", err))
	}
	return res
}

// errorResult is a structured tool error: isError, the error object as
// structuredContent, and its one-line text.
func errorResult(e *tools.Error) *mcp.CallToolResult {
	raw, _ := json.Marshal(e)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: e.Text()}},
		StructuredContent: json.RawMessage(raw),
	}
}

// budgetMargin is kept from timeout_ms so that a call's own work ends,
// with its own error, before the dispatcher would answer
// still_processing.
const budgetMargin = 250 * time.Millisecond

// Budget bounds the call's browser work by its timeout_ms (less a margin,
// at least a second), so a page that never answers ends the call with a
// structured timeout.
func (c *Call) Budget(ctx context.Context) (context.Context, context.CancelFunc) {
	d := time.Duration(c.TimeoutMS)*time.Millisecond - budgetMargin
	return context.WithTimeout(ctx, max(d, time.Second))
}
