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

// recordedModes are the interact modes the export records.
var recordedModes = []string{"navigate", "new_tab", "refresh", "back", "forward", "click", "type", "select", "check",
	"key_press", "fill_form", "hover", "focus", "scroll_to", "handle_dialog", "drag", "upload", "execute_js", "batch"}

// record wraps the interact modes so each call is recorded.
func (g *Generator) record(m *mcpserver.Server) {
	for _, what := range recordedModes {
		m.Wrap("interact", what, func(h mcpserver.Handler) mcpserver.Handler {
			return func(ctx context.Context, c *mcpserver.Call) (any, error) {
				start := time.Now()
				v, err := h(ctx, c)
				raw, failed := resultJSON(v, err)
				for _, a := range actionsOf(what, c, raw, failed, start) {
					g.rec.Action(c.Session.ID(), a)
				}
				tc := export.ToolCall{At: start.UTC(), Tool: "interact", Mode: what, OK: !failed, DurationMS: time.Since(start).Milliseconds()}
				var te *tools.Error
				if errors.As(err, &te) {
					tc.Error = te.Code
				}
				g.rec.Call(c.Session.ID(), tc)
				return v, err
			}
		})
	}
}

// actionsOf is the recorded form of one interact call: one action, or one
// per step of a batch (its steps' results give their targets).
func actionsOf(what string, c *mcpserver.Call, raw json.RawMessage, failed bool, at time.Time) []export.Action {
	tab := c.Int("tab_id", 0)
	if what != "batch" {
		a := export.ActionOf(what, c.Args, raw, !failed, at)
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
	steps, _ := c.Args["steps"].([]any)
	var out []export.Action
	for i, s := range steps {
		args, _ := s.(map[string]any)
		mode, _ := args["what"].(string)
		var step json.RawMessage
		ok := false
		if i < len(res.Steps) {
			step = res.Steps[i]
			var st struct {
				OK bool `json:"ok"`
			}
			json.Unmarshal(step, &st)
			ok = st.OK
		}
		a := export.ActionOf(mode, args, step, ok, at)
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
