package generate

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Watches says which calls the session export records: those whose
// mode's definition has a replay form (tools.Mode.Replay). The Generator
// is an mcpserver.Watcher.
func (g *Generator) Watches(m *tools.Mode) bool { return m.Replay.Recorded() }

// Begin records the call once its handler answered: its actions, and the
// tool call.
func (g *Generator) Begin(_ context.Context, c *mcpserver.Call) func(any, error) {
	start := time.Now()
	return func(v any, err error) {
		raw, failed := resultJSON(v, err)
		var te *tools.Error
		if failed && c.Mode.Replay == tools.ReplaySteps && errors.As(err, &te) && te.Details != nil {
			raw, _ = json.Marshal(te.Details) // the steps before the failed one ran: their results are here
		}
		for _, a := range actionsOf(c, raw, failed, start) {
			g.rec.Action(c.Session.ID(), a)
		}
		tc := export.ToolCall{At: start.UTC(), Tool: c.Mode.Tool, Mode: c.Mode.Name, OK: !failed, DurationMS: time.Since(start).Milliseconds()}
		if errors.As(err, &te) {
			tc.Error = te.Code
		}
		g.rec.Call(c.Session.ID(), tc)
	}
}

// actionsOf is the recorded form of one interact call: one action, or one
// per step of a batch (its steps' results give their targets), from the
// call's typed arguments.
func actionsOf(c *mcpserver.Call, raw json.RawMessage, failed bool, at time.Time) []export.Action {
	tab := c.Args.TabID
	if c.Mode.Replay != tools.ReplaySteps {
		a := export.ActionOf(c.Mode.Name, &c.Args, raw, !failed, at)
		if a.TabID == 0 {
			a.TabID = tab
		}
		return []export.Action{a}
	}
	var res struct {
		TabID int               `json:"tab_id"`
		Steps []json.RawMessage `json:"steps"`
	}
	json.Unmarshal(raw, &res)
	var out []export.Action
	for i := range c.Args.Steps {
		st := &c.Args.Steps[i]
		var step json.RawMessage
		ok := false
		if i < len(res.Steps) {
			step = res.Steps[i]
			var s struct {
				OK bool `json:"ok"`
			}
			json.Unmarshal(step, &s)
			ok = s.OK
		}
		a := export.ActionOf(st.What, &st.Args, step, ok, at)
		a.TabID = max(res.TabID, tab)
		out = append(out, a)
	}
	return out
}

// resultJSON is a handler's answer as JSON, and whether it failed.
func resultJSON(v any, err error) (json.RawMessage, bool) {
	if err != nil {
		return nil, true
	}
	if r, ok := v.(*mcp.CallToolResult); ok {
		raw, _ := json.Marshal(r.StructuredContent)
		return raw, r.IsError
	}
	raw, _ := json.Marshal(v)
	return raw, false
}

// Run records every approval event for its session's export.
func (g *Generator) Run(ctx context.Context) {
	events, stop := g.cfg.Approvals.Subscribe()
	defer stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return // fell behind: the engine dropped this subscriber
			}
			g.rec.Decision(ev.Request.SessionID, export.Decision{At: ev.Time.UTC(), Type: string(ev.Type), Action: ev.Request.Action,
				RequestID: ev.Request.RequestID, Decision: ev.Decision, Reason: ev.Reason})
		case <-ctx.Done():
			return
		}
	}
}
