package generate

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Document builds the export of a session (and its tab, 0 for
// the session's current tab; -1 for none).
func (g *Generator) Document(ctx context.Context, sid string, tab int, conversation any) (export.Document, error) {
	doc := export.Document{Format: export.FormatVersion, GeneratedAt: time.Now().UTC(), Session: export.Session{ID: sid}}
	if sess := g.cfg.Sessions(sid); sess != nil {
		doc.Session.Client = sess.Info().Client.Name
	}
	if tab >= 0 {
		if t, why := g.cfg.Tabs.Registry().Lookup(sid, tab); why.Kind == tabs.WhyOK {
			tab = t
		} else {
			tab = -1
		}
	}
	actions, calls, decisions := g.rec.Snapshot(sid)
	doc.ToolCalls, doc.Decisions, doc.Conversation = calls, decisions, conversation
	var first, last string
	vp := export.Viewport{}
	if tab > 0 {
		doc.Session.TabID = tab
		doc.Timeline = g.cfg.Store.Timeline(tab, 0, capture.MaxLimit).Entries
		doc.Evidence = export.EvidenceOf(g.cfg.Store.Errors(tab), allRequests(g.cfg.Store, tab, true))
		if navs := g.cfg.Store.Navigations(tab, 0, 1).Entries; len(navs) > 0 {
			first = navs[0].URL
		}
		last = g.cfg.Tabs.URL(tab)
		vp = g.viewport(ctx, tab)
	}
	doc.Replay = export.ReplayOf(actions, first, last, vp)
	return doc, nil
}

// viewport reads the tab's viewport, bounded; zero when it cannot.
func (g *Generator) viewport(ctx context.Context, tab int) export.Viewport {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var res struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	err := g.cfg.Tabs.Target(tab).Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": "innerWidth+'x'+innerHeight", "returnByValue": true}, &res)
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

func (g *Generator) egress() *egress {
	e, err := g.cfg.Egress.Engine()
	return &egress{redact.Fields{E: e, Err: err}}
}

// replay redacts the replay metadata field by field, so generators work
// on redacted values.
func (e *egress) replay(r *export.Replay) {
	e.URL(&r.StartURL)
	e.URL(&r.FinalURL)
	for i := range r.Actions {
		a := &r.Actions[i]
		e.URL(&a.URL)
		e.URL(&a.PageURL)
		e.Strings(&a.Text, &a.Value, &a.Prompt, &a.Keys, &a.Target, &a.Selector, &a.Ref)
		for j := range a.Fields {
			f := &a.Fields[j]
			e.Strings(&f.Value, &f.Target, &f.Selector)
		}
	}
}

// json redacts a whole document as JSON.
func (e *egress) json(v any) json.RawMessage {
	if e.Err != nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		e.Err = err
		return nil
	}
	return e.JSON(raw)
}

// done counts the egress redactions to the session and turns a failure
// into the tool error that blocks the output.
func (g *Generator) done(sid string, eg *egress) error {
	if c := g.cfg.Egress.Count; c != nil {
		c(sid, redact.StageEgress, eg.Stats, eg.Err)
	}
	if eg.Err != nil {
		return &tools.Error{Code: "redaction_failed", Message: "the export was blocked by redaction (" + eg.Err.Error() + "); nothing was written; fix redaction.json and retry"}
	}
	return nil
}

// Redacted is the export document as it may leave: redacted as a
// whole, counters filled.
func (g *Generator) Redacted(sid string, doc export.Document) (json.RawMessage, error) {
	eg := g.egress()
	eg.replay(&doc.Replay)
	doc.Redaction = export.Redaction{PolicyVersion: g.cfg.PolicyVersion()}
	raw := eg.json(doc)
	if err := g.done(sid, eg); err != nil {
		return nil, err
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil {
		m["redaction"] = export.Redaction{PolicyVersion: g.cfg.PolicyVersion(), RedactedCount: int64(eg.Stats.Redacted)}
		raw, _ = json.Marshal(m)
	}
	return raw, nil
}
