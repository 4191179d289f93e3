package csp

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

//go:embed inline.js
var inlineScript string

// Config configures generate csp. All fields are required.
type Config struct {
	Tabs  *tabs.Manager
	Store *capture.Store
}

// Register serves generate csp on m.
func Register(m *mcpserver.Server, cfg Config) {
	m.Handle("generate", "csp", func(ctx context.Context, c *mcpserver.Call) (any, error) { return generate(ctx, cfg, c) })
}

// Result is generate csp's answer.
type Result struct {
	Policy
	TabID int `json:"tab_id"`
	// Scope is "page" (the requests of the tab's current document) or
	// "all" (every captured request: the document is not known).
	Scope string `json:"scope"`
	// Content is the header line, ready to paste into a server config.
	Content string `json:"content"`
}

// inlineBudget bounds reading the page's inline content.
const inlineBudget = 5 * time.Second

func generate(ctx context.Context, cfg Config, c *mcpserver.Call) (any, error) {
	sid := c.Session.ID()
	tab, err := cfg.Tabs.Tab(sid, c.Args.TabID)
	if err != nil {
		return nil, err
	}
	in := Input{ReportOnly: c.Args.ReportOnly}
	scope := "page"
	doc, known := cfg.Store.Document(tab)
	q := capture.NetworkQuery{Limit: capture.MaxLimit}
	if known {
		q.Doc, in.PageURL, in.Document = &doc, doc.URL, doc.LoaderID
	} else {
		scope, in.PageURL = "all", cfg.Tabs.URL(tab)
	}
	in.Requests = requests(cfg.Store, tab, q)
	for _, r := range cfg.Store.Pending(tab) {
		if !known || doc.Has(r) {
			in.Requests = append(in.Requests, r)
		}
	}
	in.Sockets = sockets(cfg.Store, tab, doc.Time)
	ictx, cancel := c.Budget(ctx)
	defer cancel()
	ictx, cancel2 := context.WithTimeout(ictx, inlineBudget)
	defer cancel2()
	if s, err := cfg.Tabs.Session(ictx, sid, tab); err == nil {
		in.Inline, _ = readInline(ictx, s)
	}
	p := Build(in)
	if in.PageURL == "" {
		p.Notes = append(p.Notes, "the page's origin is unknown: 'self' is whatever serves the policy")
	}
	if !known {
		p.Notes = append(p.Notes, "capture never saw this tab navigate, so every captured request counts; navigate (or refresh) and generate again for the current page's alone")
	}
	res := Result{Policy: p, TabID: tab, Scope: scope, Content: p.Header + ": " + p.Value}
	var b strings.Builder
	b.WriteString(res.Content)
	fmt.Fprintf(&b, "\nbuilt from %d requests of tab %d (%s)", p.Requests, tab, or(in.PageURL, "page unknown"))
	for _, n := range p.Notes {
		b.WriteString("\n- " + n)
	}
	// The page text is the page's address and the sources the policy
	// names (the page's requests'); the rest is Gasoline's words.
	return mcpserver.PageResult(b.String(), res, new(untrusted.Page).Add(in.PageURL, p.Value))
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// requests reads every finished request q selects.
func requests(store *capture.Store, tab int, q capture.NetworkQuery) []capture.Request {
	var out []capture.Request
	for range 64 {
		p := store.Network(tab, q)
		out = append(out, p.Entries...)
		q.After = p.Next
		if !p.Truncated {
			break
		}
	}
	return out
}

// sockets lists the URLs of the WebSockets the tab opened since since.
func sockets(store *capture.Store, tab int, since time.Time) []string {
	var out []string
	q := capture.WebSocketQuery{Limit: capture.MaxLimit}
	for range 64 {
		p := store.WebSockets(tab, q)
		for _, e := range p.Entries {
			if e.Event == "created" && !e.Time.Before(since) {
				out = append(out, e.URL)
			}
		}
		q.After = p.Next
		if !p.Truncated {
			break
		}
	}
	return out
}

// readInline reads the page's inline content in an isolated world of its
// main frame.
func readInline(ctx context.Context, s *cdp.Session) (*Inline, error) {
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil || tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return nil, errors.Join(errors.New("csp: no main frame"), err)
	}
	no := false
	w, err := cdproto.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: "gasoline-csp", GrantUniveralAccess: &no})
	if err != nil {
		return nil, err
	}
	yes := true
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: inlineScript, ContextID: w.ExecutionContextID, ReturnByValue: &yes, Silent: &yes})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return nil, errors.New("csp: reading inline content threw")
	}
	var in Inline
	if err := json.Unmarshal(res.Result.Value, &in); err != nil {
		return nil, err
	}
	return &in, nil
}
