// Package generate serves the generate tool's session artifacts —
// reproduction and test (Playwright) and har — and the redacted session
// export the panel downloads. A recorder sees every interact call (its
// handlers are wrapped once they are registered) and every approval
// event; a document is built from it, the capture buffers and, for the
// panel, its conversation, and it passes the egress stage of the
// redaction gateway as a whole before anything is generated from it or
// written.
package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// Config configures a Generator. Every field is required.
type Config struct {
	// Sessions finds an MCP session (for its client's name).
	Sessions func(id string) *session.Session
	Tabs     *tabs.Manager
	Store    *capture.Store
	// CDP is a typed CDP session on a tab (for its viewport).
	CDP func(tab int) *cdp.Session
	// Egress is the redaction gateway's last stage.
	Egress *redact.Gateway
	// PolicyVersion is the redaction policy in force.
	PolicyVersion func() string
	// Approvals is the approval engine, whose decisions are recorded.
	Approvals *approval.Engine
	// Dir is the state directory: files go under Dir/exports.
	Dir string
	// Version is the daemon's version (HAR creator).
	Version string
	// Noise hides recurring noise from pr_summary's errors (noise rules).
	Noise interface{ Hide(text, url string) bool }
}

// Generator records sessions and generates from them.
type Generator struct {
	cfg Config
	rec *export.Recorder
}

// New returns a Generator.
func New(cfg Config) *Generator { return &Generator{cfg: cfg, rec: export.NewRecorder()} }

// Register serves generate reproduction, test and har, and wraps the
// interact modes to record them: call it after they are registered.
func (g *Generator) Register(m *mcpserver.Server) {
	g.record(m)
	m.Handle("generate", "reproduction", g.generate)
	m.Handle("generate", "test", g.generate)
	m.Handle("generate", "har", g.generate)
	m.Handle("generate", "pr_summary", g.generate)
}

// Recorder is the session recorder (the action recorder adds what the
// user does by hand during a recording).
func (g *Generator) Recorder() *export.Recorder { return g.rec }

// generate serves generate reproduction, test and har.
func (g *Generator) generate(ctx context.Context, c *mcpserver.Call) (any, error) {
	sid := c.Session.ID()
	doc, err := g.Document(ctx, sid, c.Int("tab_id", 0), nil)
	if err != nil {
		return nil, err
	}
	eg := g.egress()
	eg.replay(&doc.Replay)
	if err := g.done(sid, eg); err != nil {
		return nil, err
	}
	var body, ext string
	out := map[string]any{"what": c.Mode.Name}
	// page is what the artifact took from pages: the recorded actions'
	// selectors, targets, typed text and URLs, the errors and requests it
	// cites, a HAR's entries. The code around them is Gasoline's template:
	// the instruction scanner reads only page (mcpserver.PageResult).
	page := new(untrusted.Page)
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
		page.AddValue(doc.Replay)
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
	case "pr_summary":
		hidden := 0
		doc.Evidence = slices.DeleteFunc(doc.Evidence, func(e export.Evidence) bool {
			h := e.Kind == "error" && g.cfg.Noise.Hide(e.Title, e.URL)
			if h {
				hidden++
			}
			return h
		})
		page.AddValue(doc.Replay).AddValue(doc.Evidence).AddValue(doc.Timeline)
		var stats export.SummaryStats
		body, stats = export.PRSummary(doc, hidden)
		ext, out["summary"] = ".md", stats
	case "har":
		tab := doc.Session.TabID
		if tab == 0 {
			return nil, &tools.Error{Code: "no_tab", Message: "generate har needs a tab of this session with captured traffic; navigate first or pass tab_id"}
		}
		h := export.BuildHAR(allRequests(g.cfg.Store, tab, false), doc.Replay.FinalURL, "", g.cfg.Version, c.Str("url"))
		eg := g.egress()
		raw := eg.json(h)
		if err := g.done(sid, eg); err != nil {
			return nil, err
		}
		var pretty bytes.Buffer
		json.Indent(&pretty, raw, "", " ")
		body, ext = pretty.String(), ".har"
		out["entries"] = len(h.Log.Entries)
		page.AddValue(h.Log.Entries)
	}
	// The generated text passes the egress stage once more: it is built
	// from redacted values, and this is the last pass before it leaves.
	body, err = g.cfg.Egress.Text(sid, body)
	if err != nil {
		return nil, &tools.Error{Code: "redaction_failed", Message: "the output was blocked by redaction: " + err.Error()}
	}
	if c.Bool("to_file") {
		path, err := export.Save(g.cfg.Dir, c.Mode.Name, ext, []byte(body))
		if err != nil {
			return nil, err
		}
		out["path"] = path
		return mcpserver.PageResult(fmt.Sprintf("%s written to %s (%d bytes)", c.Mode.Name, path, len(body)), out, nil) // the artifact is in the file
	}
	out["content"] = body
	return mcpserver.PageResult(body, out, page)
}
