package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The redacted session export and generate {reproduction, test, har}: the
// recorder sees every interact call (its handlers are wrapped after they
// are registered) and every approval event; a document is built from it,
// the capture buffers and the panel's conversation, and passes the egress
// stage of the redaction gateway as a whole before anything is generated
// from it or written.

// recordedModes are the interact modes the export records.
var recordedModes = []string{"navigate", "new_tab", "refresh", "back", "forward", "click", "type", "select", "check",
	"key_press", "fill_form", "hover", "focus", "scroll_to", "handle_dialog", "drag", "upload", "execute_js", "batch"}

// record wraps the interact modes so each call is recorded.
func (st *agentState) record(m *mcpserver.Server) {
	for _, what := range recordedModes {
		m.Wrap("interact", what, func(h mcpserver.Handler) mcpserver.Handler {
			return func(ctx context.Context, c *mcpserver.Call) (any, error) {
				start := time.Now()
				v, err := h(ctx, c)
				raw, failed := resultJSON(v, err)
				for _, a := range actionsOf(what, c, raw, failed, start) {
					st.rec.Action(c.Session.ID(), a)
				}
				tc := export.ToolCall{At: start.UTC(), Tool: "interact", Mode: what, OK: !failed, DurationMS: time.Since(start).Milliseconds()}
				var te *tools.Error
				if errors.As(err, &te) {
					tc.Error = te.Code
				}
				st.rec.Call(c.Session.ID(), tc)
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

// recordDecisions records every approval event for its session's export.
func (st *agentState) recordDecisions(ctx context.Context) {
	events, stop := st.s.safe.approvals.Subscribe()
	defer stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return // fell behind: the engine dropped this subscriber
			}
			st.rec.Decision(ev.Request.SessionID, export.Decision{At: ev.Time.UTC(), Type: string(ev.Type), Action: ev.Request.Action,
				RequestID: ev.Request.RequestID, Decision: ev.Decision, Reason: ev.Reason})
		case <-ctx.Done():
			return
		}
	}
}

// document builds the redacted export of a session (and its tab, 0 for
// the session's current tab; -1 for none).
func (st *agentState) document(ctx context.Context, sid string, tab int, conversation any) (export.Document, error) {
	b := st.s.browser
	doc := export.Document{Format: export.FormatVersion, GeneratedAt: time.Now().UTC(), Session: export.Session{ID: sid}}
	if sess := st.m.SessionManager().Get(sid); sess != nil {
		doc.Session.Client = sess.Info().Client.Name
	}
	if tab >= 0 {
		if t, why := b.tabs.Registry().Lookup(sid, tab); why.Kind == tabs.WhyOK {
			tab = t
		} else {
			tab = -1
		}
	}
	actions, calls, decisions := st.rec.Snapshot(sid)
	doc.ToolCalls, doc.Decisions, doc.Conversation = calls, decisions, conversation
	var first, last string
	vp := export.Viewport{}
	if tab > 0 {
		doc.Session.TabID = tab
		doc.Timeline = b.store.Timeline(tab, 0, capture.MaxLimit).Entries
		doc.Evidence = export.EvidenceOf(b.store.Errors(tab), allRequests(b.store, tab, true))
		if navs := b.store.Navigations(tab, 0, 1).Entries; len(navs) > 0 {
			first = navs[0].URL
		}
		last = b.tabs.URL(tab)
		vp = st.viewport(ctx, tab)
	}
	doc.Replay = export.ReplayOf(actions, first, last, vp)
	return doc, nil
}

// viewport reads the tab's viewport, bounded; zero when it cannot.
func (st *agentState) viewport(ctx context.Context, tab int) export.Viewport {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var res struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	err := st.s.CDP(tab).Call(ctx, "Runtime.evaluate", map[string]any{"expression": "innerWidth+'x'+innerHeight", "returnByValue": true}, &res)
	if err != nil {
		return export.Viewport{}
	}
	w, h, _ := strings.Cut(res.Result.Value, "x")
	wi, _ := strconv.Atoi(w)
	hi, _ := strconv.Atoi(h)
	return export.Viewport{Width: wi, Height: hi}
}

// allRequests pages through a tab's finished requests.
func allRequests(store *capture.Store, tab int, failedOnly bool) []capture.Request {
	var out []capture.Request
	var after uint64
	for range 20 {
		p := store.Network(tab, capture.NetworkQuery{After: after, Limit: capture.MaxLimit, FailedOnly: failedOnly})
		out = append(out, p.Entries...)
		after = p.Next
		if !p.Truncated {
			break
		}
	}
	return out
}

// egress redacts one export's fields and documents with the egress
// engine, summing what it redacted; a broken policy blocks every export.
type egress struct{ redact.Fields }

func (st *agentState) egress() *egress {
	e, err := st.s.Egress().Engine()
	return &egress{redact.Fields{E: e, Err: err}}
}

// replay redacts the replay metadata field by field, so generators work
// on redacted values.
func (g *egress) replay(r *export.Replay) {
	g.URL(&r.StartURL)
	g.URL(&r.FinalURL)
	for i := range r.Actions {
		a := &r.Actions[i]
		g.URL(&a.URL)
		g.URL(&a.PageURL)
		g.Strings(&a.Text, &a.Value, &a.Prompt, &a.Keys, &a.Target, &a.Selector, &a.Ref)
		for j := range a.Fields {
			f := &a.Fields[j]
			g.Strings(&f.Value, &f.Target, &f.Selector)
		}
	}
}

// json redacts a whole document as JSON.
func (g *egress) json(v any) json.RawMessage {
	if g.Err != nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		g.Err = err
		return nil
	}
	return g.JSON(raw)
}

// done counts the egress redactions to the session and turns a failure
// into the tool error that blocks the output.
func (st *agentState) done(sid string, g *egress) error {
	if c := st.s.Egress().Count; c != nil {
		c(sid, redact.StageEgress, g.Stats, g.Err)
	}
	if g.Err != nil {
		return &tools.Error{Code: "redaction_failed", Message: "the export was blocked by redaction (" + g.Err.Error() + "); nothing was written; fix redaction.json and retry"}
	}
	return nil
}

// redactedDoc is the export document as it may leave: redacted as a
// whole, counters filled.
func (st *agentState) redactedDoc(sid string, doc export.Document) (json.RawMessage, error) {
	g := st.egress()
	g.replay(&doc.Replay)
	doc.Redaction = export.Redaction{PolicyVersion: st.s.safe.red.version()}
	raw := g.json(doc)
	if err := st.done(sid, g); err != nil {
		return nil, err
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil {
		m["redaction"] = export.Redaction{PolicyVersion: st.s.safe.red.version(), RedactedCount: int64(g.Stats.Redacted)}
		raw, _ = json.Marshal(m)
	}
	return raw, nil
}

// generate serves generate reproduction, test and har.
func (st *agentState) generate(ctx context.Context, c *mcpserver.Call) (any, error) {
	sid := c.Session.ID()
	doc, err := st.document(ctx, sid, c.Int("tab_id", 0), nil)
	if err != nil {
		return nil, err
	}
	g := st.egress()
	g.replay(&doc.Replay)
	if err := st.done(sid, g); err != nil {
		return nil, err
	}
	var body, ext string
	out := map[string]any{"what": c.Mode.Name}
	switch c.Mode.Name {
	case "reproduction", "test":
		if s := c.Str("after_cursor"); s != "" {
			n, perr := strconv.Atoi(s)
			if perr != nil {
				return nil, &tools.Error{Code: tools.CodeInvalidArgument, Message: "after_cursor must be an action seq from a previous reproduction"}
			}
			kept := doc.Replay.Actions[:0]
			for _, a := range doc.Replay.Actions {
				if a.Seq > n {
					kept = append(kept, a)
				}
			}
			doc.Replay.Actions = kept
		}
		if len(doc.Replay.Actions) == 0 && doc.Replay.StartURL == "" {
			return nil, &tools.Error{Code: "nothing_recorded", Message: "this session has recorded no actions yet; drive the page with interact (navigate, click, type …), then generate again"}
		}
		ext = ".js"
		if c.Mode.Name == "reproduction" {
			body = export.Reproduction(doc)
		} else {
			body = export.Test(doc, c.Str("name"))
			ext = ".spec.js"
		}
		replayable := 0
		for _, a := range doc.Replay.Actions {
			if a.OK && (a.Selector != "" || a.URL != "" || a.Mode == "refresh" || a.Mode == "back" || a.Mode == "forward" || a.Mode == "key_press") {
				replayable++
			}
		}
		out["actions"], out["replayable"], out["start_url"], out["viewport"] = len(doc.Replay.Actions), replayable, doc.Replay.StartURL, doc.Replay.Viewport
		if n := len(doc.Replay.Actions); n > 0 {
			out["next_cursor"] = strconv.Itoa(doc.Replay.Actions[n-1].Seq)
		}
	case "har":
		tab := doc.Session.TabID
		if tab == 0 {
			return nil, &tools.Error{Code: "no_tab", Message: "generate har needs a tab of this session with captured traffic; navigate first or pass tab_id"}
		}
		h := export.BuildHAR(allRequests(st.s.browser.store, tab, false), doc.Replay.FinalURL, "", st.s.cfg.Version, c.Str("url"))
		g := st.egress()
		raw := g.json(h)
		if err := st.done(sid, g); err != nil {
			return nil, err
		}
		var pretty bytes.Buffer
		json.Indent(&pretty, raw, "", " ")
		body, ext = pretty.String(), ".har"
		out["entries"] = len(h.Log.Entries)
	}
	// The generated text passes the egress stage once more: it is built
	// from redacted values, and this is the last pass before it leaves.
	body, err = st.s.Egress().Text(sid, body)
	if err != nil {
		return nil, &tools.Error{Code: "redaction_failed", Message: "the output was blocked by redaction: " + err.Error()}
	}
	if c.Bool("to_file") {
		path, err := st.writeExport(c.Mode.Name, ext, body)
		if err != nil {
			return nil, err
		}
		out["path"] = path
		return mcpResult(fmt.Sprintf("%s written to %s (%d bytes)", c.Mode.Name, path, len(body)), out)
	}
	out["content"] = body
	return mcpResult(body, out)
}

func mcpResult(text string, v any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(raw)}, nil
}

// writeExport writes under the state directory's exports/, mode 0600.
func (st *agentState) writeExport(what, ext, body string) (string, error) {
	dir := filepath.Join(st.s.cfg.Dir, "exports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s%s", what, time.Now().UTC().Format("20060102T150405.000"), ext))
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// panelExport answers panel.export: the panel session's redacted export,
// with one conversation's events (or all conversations').
func (st *agentState) panelExport(ctx context.Context, raw json.RawMessage) (any, *protocol.Error) {
	var p struct {
		ConversationID string `json:"conversation_id"`
	}
	json.Unmarshal(raw, &p)
	conv := map[string]any{}
	for _, c := range st.chat.Conversations() {
		if p.ConversationID == "" || c.ID == p.ConversationID {
			conv[c.ID] = map[string]any{"provider": c.Provider, "tab_id": c.TabID(), "created_at": c.Created, "events": c.Events()}
		}
	}
	if p.ConversationID != "" && len(conv) == 0 {
		return nil, protocol.Errorf(CodeConversationLost, false, "conversation %s is gone (the daemon restarted)", p.ConversationID)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	doc, err := st.document(ctx, PanelSessionID, 0, conv)
	if err == nil {
		var raw json.RawMessage
		if raw, err = st.redactedDoc(PanelSessionID, doc); err == nil {
			return raw, nil
		}
	}
	return nil, &protocol.Error{Code: "redaction_failed", Message: err.Error()}
}
