package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// builtins registers the modes the MCP layer answers itself.
func (s *Server) builtins() {
	s.register("configure", "health", handler{run: s.health, inline: true})
	s.register("configure", "doctor", handler{run: s.doctor, inline: true})
	s.register("configure", "describe_capabilities", handler{run: s.describe, inline: true})
	s.register("observe", "command_result", handler{run: s.commandResult, inline: true})
	s.register("observe", "pending_commands", handler{run: s.pendingCommands, inline: true})
}

// Health is configure health's answer.
type Health struct {
	Service         string          `json:"service"`
	Version         string          `json:"version"`
	PID             int             `json:"pid"`
	UptimeMS        int64           `json:"uptime_ms"`
	TransportStatus TransportStatus `json:"transport_status"`
	// Caller is the calling MCP session. (Not "session": results pass the
	// redaction gateway, which blanks any value under a session-like name;
	// its session_id is redacted here too, as a credential.)
	Caller session.Info `json:"caller"`
	Modes  ModeCount    `json:"modes"`
	// Browsers are the connected browsers, by name and profile.
	Browsers any `json:"browsers,omitempty"`
	// Memory is the daemon's live heap, runtime figures and the size of
	// each store holding anything.
	Memory any `json:"memory,omitempty"`
}

// TransportStatus matches /health's transport_status.
type TransportStatus struct {
	Stdio     int    `json:"stdio"`
	HTTP      int    `json:"http"`
	Extension string `json:"extension"`
}

// ModeCount says how much of the tool surface this build serves.
type ModeCount struct {
	Total  int `json:"total"`
	Served int `json:"served"`
}

func (s *Server) health(ctx context.Context, c *Call) (any, error) {
	d := s.opts.Daemon()
	if d.StartedAt.IsZero() {
		d.StartedAt = s.started
	}
	stdio, http := s.sessions.Counts()
	h := Health{
		Service: "gasoline", Version: s.opts.Version, PID: d.PID,
		UptimeMS:        time.Since(d.StartedAt).Milliseconds(),
		TransportStatus: TransportStatus{Stdio: stdio, HTTP: http, Extension: extensionState(d.Extension)},
		Caller:          c.Session.Info(),
		Modes:           s.modeCount(),
		Browsers:        d.Browsers,
		Memory:          d.Memory,
	}
	return h, nil
}

func extensionState(connected bool) string {
	if connected {
		return "connected"
	}
	return "disconnected"
}

func (s *Server) modeCount() ModeCount {
	var n ModeCount
	for _, t := range tools.All() {
		for _, m := range t.Modes {
			n.Total++
			if s.available(m) {
				n.Served++
			}
		}
	}
	return n
}

// Described is describe_capabilities without a tool: the whole surface.
type Described struct {
	Tools  []tools.ToolBrief `json:"tools"`
	Served []string          `json:"served"`
}

func (s *Server) describe(ctx context.Context, c *Call) (any, error) {
	tool, mode := c.Args.Tool, c.Args.Mode
	switch {
	case tool == "" && mode != "":
		return nil, &tools.Error{Code: tools.CodeInvalidArgument, Message: "describe_capabilities with mode also needs tool", NextAction: tools.Describe("", "")}
	case tool == "":
		d := Described{Served: s.served()}
		for _, t := range tools.All() {
			d.Tools = append(d.Tools, t.Brief(s.available))
		}
		return d, nil
	}
	t, _ := tools.Get(tool) // the enum was validated
	if mode == "" {
		return t.Brief(s.available), nil
	}
	m := t.Mode(mode)
	if m == nil {
		_, e := tools.Parse(tool, json.RawMessage(fmt.Sprintf(`{"what":%q}`, mode)))
		return nil, e
	}
	return m.Guide(s.available(m)), nil
}

// CommandResult is observe command_result's answer for a finished command.
type CommandResult struct {
	Status        string          `json:"status"` // complete
	CorrelationID string          `json:"correlation_id"`
	Tool          string          `json:"tool"`
	What          string          `json:"what"`
	Result        json.RawMessage `json:"result,omitempty"`
	Error         json.RawMessage `json:"error,omitempty"`
}

func (s *Server) commandResult(ctx context.Context, c *Call) (any, error) {
	id := c.Args.CorrelationID
	cmd, ok := c.Session.Command(id)
	if e, evicted := c.Session.Evicted(id); !ok && evicted {
		return nil, &tools.Error{Code: tools.CodeResultEvicted, Message: e.Message,
			NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "pending_commands"}}}
	}
	if !ok {
		return nil, &tools.Error{
			Code:       tools.CodeUnknownCommand,
			Message:    fmt.Sprintf("this session has no command %q (finished results are kept for a limited time); observe pending_commands lists the session's commands", id),
			NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "pending_commands"}},
		}
	}
	v, done := cmd.Result()
	if !done {
		return stillProcessing(cmd, int(time.Since(cmd.Started).Milliseconds())), nil
	}
	orig := v.(*mcp.CallToolResult)
	cr := CommandResult{Status: "complete", CorrelationID: cmd.ID, Tool: cmd.Tool, What: cmd.What}
	raw, _ := orig.StructuredContent.(json.RawMessage)
	if orig.IsError {
		cr.Error = raw
	} else {
		cr.Result = raw
	}
	res := okResult(cr)
	res.IsError = orig.IsError
	res.Content = orig.Content
	if page, ok := pageOf(orig); ok {
		WithPage(res, page) // the command's page text is this answer's
	}
	return res, nil
}

// Pending is observe pending_commands' answer.
type Pending struct {
	Commands []session.CommandInfo `json:"commands"`
	Cursor   string                `json:"cursor"`
}

func (s *Server) pendingCommands(ctx context.Context, c *Call) (any, error) {
	after, err := session.ParseCursor(c.Args.AfterCursor)
	if err != nil {
		return nil, &tools.Error{Code: tools.CodeInvalidArgument, Message: "after_cursor must be a cursor from a previous pending_commands answer", NextAction: tools.Describe("observe", "pending_commands")}
	}
	list := c.Session.Commands(after, cmp.Or(c.Args.Limit, 100))
	p := Pending{Commands: list, Cursor: c.Args.AfterCursor}
	if p.Commands == nil {
		p.Commands = []session.CommandInfo{}
	}
	if n := len(list); n > 0 {
		p.Cursor = list[n-1].Cursor
	}
	return p, nil
}
