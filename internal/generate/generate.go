// Package generate serves the generate tool's session artifacts —
// reproduction and test (Playwright) and har — and the redacted session
// export the panel downloads. A recorder sees every call of a recorded
// mode (the Generator watches them: mcpserver.Watcher) and every approval
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
	// Tabs resolves the session's tabs and holds their targets (a tab's
	// CDP session reads its viewport).
	Tabs  *tabs.Manager
	Store *capture.Store
	// Record is the session export's record: what the recorder (Watches)
	// and the in-page action recorder write, and documents read.
	Record *export.Recorder
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

// New returns a Generator; without Config.Record it keeps a record of its
// own.
func New(cfg Config) *Generator {
	if cfg.Record == nil {
		cfg.Record = export.NewRecorder()
	}
	return &Generator{cfg: cfg, rec: cfg.Record}
}

// Register serves generate reproduction, test, har and pr_summary, and
// records the calls of the recorded modes (Watches).
func (g *Generator) Register(m *mcpserver.Server) {
	m.Watch(g)
	m.Handle("generate", "reproduction", g.script(func(doc export.Document, _ *tools.Args) (string, string) {
		return export.Reproduction(doc), ".js"
	}))
	m.Handle("generate", "test", g.script(func(doc export.Document, a *tools.Args) (string, string) {
		return export.Test(doc, a.Name), ".spec.js"
	}))
	m.Handle("generate", "har", g.har)
	m.Handle("generate", "pr_summary", g.prSummary)
}

// document is the session's export, passed through the egress stage.
func (g *Generator) document(ctx context.Context, c *mcpserver.Call) (export.Document, error) {
	sid := c.Session.ID()
	doc, err := g.Document(ctx, sid, c.Args.TabID, nil)
	if err != nil {
		return doc, err
	}
	eg := g.egress()
	eg.replay(&doc.Replay)
	return doc, g.done(sid, eg)
}

// script serves reproduction and test: a Playwright script of the
// session's recorded actions (after after_cursor), rendered by render.
func (g *Generator) script(render func(export.Document, *tools.Args) (body, ext string)) mcpserver.Handler {
	return func(ctx context.Context, c *mcpserver.Call) (any, error) {
		doc, err := g.document(ctx, c)
		if err != nil {
			return nil, err
		}
		if s := c.Args.AfterCursor; s != "" {
			n, perr := strconv.Atoi(s)
			if perr != nil {
				return nil, &tools.Error{Code: tools.CodeInvalidArgument, Message: "after_cursor must be an action seq from a previous reproduction"}
			}
			doc.Replay.Actions = slices.DeleteFunc(doc.Replay.Actions, func(a export.Action) bool { return a.Seq <= n })
		}
		if len(doc.Replay.Actions) == 0 && doc.Replay.StartURL == "" {
			return nil, &tools.Error{Code: "nothing_recorded", Message: "this session has recorded no actions yet; drive the page with interact (navigate, click, type …), then generate again"}
		}
		body, ext := render(doc, &c.Args)
		// page is what the artifact took from pages (the recorded
		// actions' selectors, targets, typed text and URLs); the code
		// around it is Gasoline's template (deliver).
		page := new(untrusted.Page).AddValue(doc.Replay)
		replayable := 0
		for _, a := range doc.Replay.Actions {
			if export.Replayable(a) {
				replayable++
			}
		}
		out := map[string]any{"what": c.Mode.Name, "actions": len(doc.Replay.Actions), "replayable": replayable,
			"start_url": doc.Replay.StartURL, "viewport": doc.Replay.Viewport}
		if n := len(doc.Replay.Actions); n > 0 {
			out["next_cursor"] = strconv.Itoa(doc.Replay.Actions[n-1].Seq)
		}
		return g.deliver(c, body, ext, out, page)
	}
}

// prSummary serves pr_summary: the session in Markdown, noise left out.
func (g *Generator) prSummary(ctx context.Context, c *mcpserver.Call) (any, error) {
	doc, err := g.document(ctx, c)
	if err != nil {
		return nil, err
	}
	hidden := 0
	doc.Evidence = slices.DeleteFunc(doc.Evidence, func(e export.Evidence) bool {
		h := e.Kind == "error" && g.cfg.Noise.Hide(e.Title, e.URL)
		if h {
			hidden++
		}
		return h
	})
	page := new(untrusted.Page).AddValue(doc.Replay).AddValue(doc.Evidence).AddValue(doc.Timeline)
	body, stats := export.PRSummary(doc, hidden)
	return g.deliver(c, body, ".md", map[string]any{"what": c.Mode.Name, "summary": stats}, page)
}

// har serves har: HAR 1.2 of the tab's captured traffic, redacted.
func (g *Generator) har(ctx context.Context, c *mcpserver.Call) (any, error) {
	sid := c.Session.ID()
	doc, err := g.document(ctx, c)
	if err != nil {
		return nil, err
	}
	tab := doc.Session.TabID
	if tab == 0 {
		return nil, &tools.Error{Code: "no_tab", Message: "generate har needs a tab of this session with captured traffic; navigate first or pass tab_id"}
	}
	h := export.BuildHAR(allRequests(g.cfg.Store, tab, false), doc.Replay.FinalURL, "", g.cfg.Version, c.Args.URL)
	eg := g.egress()
	raw := eg.json(h)
	if err := g.done(sid, eg); err != nil {
		return nil, err
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, raw, "", " ")
	return g.deliver(c, pretty.String(), ".har", map[string]any{"what": c.Mode.Name, "entries": len(h.Log.Entries)}, new(untrusted.Page).AddValue(h.Log.Entries))
}

// deliver passes the generated text through the egress stage once more
// (it is built from redacted values, and this is the last pass before it
// leaves) and answers with it, or writes it to a file (to_file). page is
// what the artifact took from pages: the instruction scanner reads only
// that (mcpserver.PageResult), not Gasoline's template around it.
func (g *Generator) deliver(c *mcpserver.Call, body, ext string, out map[string]any, page *untrusted.Page) (any, error) {
	body, err := g.cfg.Egress.Text(c.Session.ID(), body)
	if err != nil {
		return nil, &tools.Error{Code: "redaction_failed", Message: "the output was blocked by redaction: " + err.Error()}
	}
	if c.Args.ToFile {
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
