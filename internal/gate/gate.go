// Package gate is the approval gate of tool calls (SAFETY.md, "Approval
// engine"): the dispatcher's hook for every mutating or sensitive call.
// Before anything is asked it refuses what could not run (a tab the
// session cannot use, a sensitive step inside a batch); then it says in
// words what the call would do (each step of a batch), binds the request
// to a fingerprint of the call's arguments, and asks the approval engine,
// which waits for the user within the call's budget.
package gate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/scheme"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Tabs is what the gate asks about a session's tabs (*tabs.Manager).
type Tabs interface {
	// Check is the error a call of the session on tab (0: its current
	// tab) would get, or nil when the session can use the tab.
	Check(session string, tab int) *tools.Error
	// Resolve returns the tab a call addresses (0: the current one).
	Resolve(session string, tab int) (int, bool)
	// URL is the tab's page.
	URL(tab int) string
	// IsShared reports the user's own tab, shared with its session.
	IsShared(tab int) bool
}

// Config configures a Gate. Every field is required.
type Config struct {
	Approvals *approval.Engine
	Tabs      Tabs
	// Describe names the element a target points at as a person sees it
	// (`button showing "Transfer $5,000" (labelled "Close this
	// dialog")`), or "" when it cannot before ctx ends.
	Describe func(ctx context.Context, tab int, t actions.Target) string
	// Page is a tab's title and address as the browser reports them
	// (tab info), never as the page's script would.
	Page func(ctx context.Context, tab int) (approval.Page, error)
	// Configure says in words what a configure call changes, or refuses
	// it when it would loosen a guard (the policy, redaction): that is
	// the user's to do, in the panel or the CLI.
	Configure func(c *mcpserver.Call) (Words, *tools.Error)
	// Redact is the server stage of the redaction gateway: prompts are
	// outputs like any other.
	Redact func(sessionID, text string) (string, error)
	// PageTools plans interact call_page_tool (pagetool.go); optional:
	// without it the mode is refused.
	PageTools PageTools
}

// Gate decides gated calls.
type Gate struct{ cfg Config }

// New returns a Gate.
func New(cfg Config) (*Gate, error) {
	if cfg.Approvals == nil || cfg.Tabs == nil || cfg.Describe == nil || cfg.Page == nil || cfg.Configure == nil || cfg.Redact == nil { // PageTools is optional
		return nil, errors.New("gate: Config.Approvals, Tabs, Describe, Page, Configure and Redact are required")
	}
	return &Gate{cfg: cfg}, nil
}

// describeWait bounds naming a call's elements and reading its tab for
// the prompt: they are named in the tab's action queue, and a prompt
// without a name is better than a late one.
const describeWait = time.Second

// Check is mcpserver.Options.Gate. It waits for the user up to the call's
// budget; past it the agent gets the structured approval_required request
// and retries with approval_id.
func (g *Gate) Check(ctx context.Context, c *mcpserver.Call) *tools.Error {
	if c.ReadsOnly() {
		return nil
	}
	if e := g.destination(c); e != nil {
		return e // file:, javascript:, an extension's page …: never asked, never run
	}
	p, e := planOf(c)
	if e != nil {
		return e // e.g. a sensitive step inside a batch: refused before asking
	}
	if c.Mode.Key() == PageToolMode {
		return g.pageTool(ctx, c, p)
	}
	if p.class == tools.ReadOnly {
		return nil // a batch of read-only steps
	}
	w, e := g.where(c)
	if e != nil {
		return e // a tab the session cannot use: nothing to approve
	}
	var cw Words
	if c.Mode.Tool == "configure" {
		if cw, e = g.cfg.Configure(c); e != nil {
			return e // a change that loosens a guard is the user's to make
		}
	}
	bare := g.bare(c, p, w)
	gated, err := g.cfg.Approvals.Gates(bare)
	if err != nil {
		return refusal(c, err)
	}
	if !gated {
		return nil // the policy allows it: no one is asked, so nothing is named (no round trip to the tab)
	}
	req, e := g.request(ctx, c, bare, p, w, cw)
	if e != nil {
		return e
	}
	_, err = g.cfg.Approvals.Require(ctx, req, timeout(c))
	if err == nil {
		return nil
	}
	return refusal(c, err)
}

// destination refuses, before anything is asked, a navigation to a page
// no agent may open (internal/scheme): file:, javascript:, data:,
// view-source:, an extension's page, a browser page.
func (g *Gate) destination(c *mcpserver.Call) *tools.Error {
	if c.Mode.Tool != "interact" || (c.Mode.Name != "navigate" && c.Mode.Name != "new_tab") {
		return nil
	}
	u := c.Str("url")
	if u == "" && c.Mode.Name == "new_tab" {
		return nil
	}
	if err := scheme.Navigation(u, g.from(c)); err != nil {
		return scheme.ToolError(c.Mode.Key(), err)
	}
	return nil
}

// from is the page a navigation leaves ("" for new_tab, or a session with
// no tab yet).
func (g *Gate) from(c *mcpserver.Call) string {
	if c.Mode.Name != "navigate" || c.Str("browser") != "" && c.Int("tab_id", 0) == 0 {
		return ""
	}
	if t, ok := g.cfg.Tabs.Resolve(c.Session.ID(), c.Int("tab_id", 0)); ok {
		return g.cfg.Tabs.URL(t)
	}
	return ""
}

// timeout is how long a call waits for the user: its budget.
func timeout(c *mcpserver.Call) time.Duration { return time.Duration(c.TimeoutMS) * time.Millisecond }

// where is the scope of a call, computed once: the tab it acts on and the
// page's origin (the destination's, for navigation).
type where struct {
	scope approval.Scope
	label string // " on tab 7 (https://shop.example)", or ""
}

// where refuses, before anything is asked, an interact call on a tab the
// session cannot use (another session's, the user's, a closed one, one
// showing a page off-limits to agents, or none yet); navigate without
// tab_id in a session with no tab, and new_tab, open a tab and pass.
func (g *Gate) where(c *mcpserver.Call) (where, *tools.Error) {
	var w where
	sid, tab := c.Session.ID(), c.Int("tab_id", 0)
	if c.Mode.Tool == "interact" && c.Mode.Name != "new_tab" {
		_, hasTab := g.cfg.Tabs.Resolve(sid, 0)
		if !(c.Mode.Name == "navigate" && tab == 0 && !hasTab) {
			// close_tab may close a tab that went off-limits: it never
			// reads or drives the page.
			if e := g.cfg.Tabs.Check(sid, tab); e != nil && !(c.Mode.Name == "close_tab" && e.Code == scheme.Code) {
				return w, e
			}
		}
	}
	// new_tab, and navigate naming a browser, may open a tab: no tab of
	// now is named in the prompt.
	if t, ok := g.cfg.Tabs.Resolve(sid, tab); ok && c.Mode.Name != "new_tab" && (tab != 0 || c.Str("browser") == "") {
		w.scope.TabID = t
	}
	if u := c.Str("url"); u != "" {
		w.scope.Origin = OriginOf(u)
		if w.scope.TabID != 0 {
			w.label = fmt.Sprintf(" in tab %d", w.scope.TabID)
			if g.cfg.Tabs.IsShared(w.scope.TabID) {
				w.label = fmt.Sprintf(" in your own tab %d, which you shared with this agent", w.scope.TabID)
			}
		}
		return w, nil
	}
	if w.scope.TabID != 0 {
		w.scope.Origin = OriginOf(g.cfg.Tabs.URL(w.scope.TabID))
		w.label = fmt.Sprintf(" on tab %d (%s)", w.scope.TabID, w.scope.Origin)
		if g.cfg.Tabs.IsShared(w.scope.TabID) {
			w.label = fmt.Sprintf(" on your own tab %d (%s), which you shared with this agent", w.scope.TabID, w.scope.Origin)
		}
	}
	return w, nil
}

// bare is the approval request without the words a person reads: what
// the policy decides on.
func (g *Gate) bare(c *mcpserver.Call, p plan, w where) approval.Request {
	return approval.Request{
		SessionID: c.Session.ID(), Action: c.Mode.Key(), Class: policy.Class(p.class), Scope: w.scope,
		Reason: "the agent called " + c.Mode.Key(), ApprovalID: c.Str("approval_id"), Call: p.call,
	}
}

// request completes req (bare) with what the call does in words and the
// tab as the browser shows it, redacted, every control and bidi
// character made visible.
func (g *Gate) request(ctx context.Context, c *mcpserver.Call, req approval.Request, p plan, w where, cw Words) (approval.Request, *tools.Error) {
	sid := req.SessionID
	ctx, cancel := context.WithTimeout(ctx, describeWait)
	defer cancel()
	if w.scope.TabID != 0 && c.Mode.Tool == "interact" {
		pg, err := g.cfg.Page(ctx, w.scope.TabID)
		if err == nil {
			if err := scheme.Page(pg.URL); err != nil && c.Mode.Name != "close_tab" {
				return approval.Request{}, scheme.ToolError(c.Mode.Key()+" on tab "+fmt.Sprint(w.scope.TabID), err)
			}
			req.Page = &pg
		}
	}
	words, steps, e := g.words(ctx, c, p, w, cw)
	if e != nil {
		return approval.Request{}, e
	}
	red := func(s string) (string, *tools.Error) {
		r, err := g.cfg.Redact(sid, s)
		if err != nil {
			return "", mcpserver.Blocked("the approval request", err)
		}
		return r, nil
	}
	fields := []*string{&words.Target, &words.Detail}
	if req.Page != nil {
		fields = append(fields, &req.Page.Title, &req.Page.URL)
	}
	for _, list := range [][]string{steps, words.Notes} {
		for i := range list {
			fields = append(fields, &list[i])
		}
	}
	// The page text this session read held instruction-like passages:
	// the user reads that beside the action (internal/untrusted).
	req.PageWarning = c.Session.PageWarning()
	fields = append(fields, &req.PageWarning)
	for _, f := range fields {
		if *f == "" {
			continue
		}
		if *f, e = red(*f); e != nil {
			return approval.Request{}, e
		}
	}
	req.Describe = Describe(req.Action)
	req.Target, req.Steps, req.Notes = inert(words.Target, false), inertAll(steps), inertAll(words.Notes)
	req.Detail, req.DetailLabel = inert(words.Detail, true), words.DetailLabel
	req.PageWarning = inert(req.PageWarning, false)
	if req.Page != nil {
		req.Page.Title, req.Page.URL = inert(req.Page.Title, false), inert(req.Page.URL, false)
	}
	return req, nil
}

// words says what the call does (`click button "Pay now" on tab 7 (…)`)
// and, for a batch, each step.
func (g *Gate) words(ctx context.Context, c *mcpserver.Call, p plan, w where, cw Words) (Words, []string, *tools.Error) {
	sid := c.Session.ID()
	redact := func(s string) (string, error) { return g.cfg.Redact(sid, s) }
	switch {
	case p.pageTarget != "": // a page tool: pagetool.go
		return Words{Target: p.pageTarget + w.label}, p.pageLines, nil
	case c.Mode.Tool == "configure":
		if cw.Target == "" {
			cw.Target = c.Mode.Key()
		}
		return cw, nil, nil
	case c.Mode.Tool != "interact":
		return Words{Target: c.Mode.Key() + w.label}, nil, nil
	case c.Mode.Name == "navigate" || c.Mode.Name == "new_tab":
		verb := map[string]string{"navigate": "go to", "new_tab": "open a new tab on"}[c.Mode.Name]
		nw, err := navWords(verb, c.Str("url"), g.from(c), redact)
		if err != nil {
			return Words{}, nil, mcpserver.Blocked("the approval request", err)
		}
		nw.Target += w.label
		return nw, nil, nil
	case c.Mode.Name == "execute_js":
		return scriptWords(p.args, w.label), nil, nil
	case w.scope.TabID == 0:
		return Words{Target: c.Mode.Key() + w.label}, nil, nil
	}
	if p.steps != nil {
		lines := make([]string, len(p.steps))
		for i, st := range p.steps {
			lines[i] = g.phrase(ctx, w.scope.TabID, st.What, &st.Args)
		}
		return Words{Target: fmt.Sprintf("a batch of %d steps%s", len(lines), w.label), Detail: longTexts(p.steps), DetailLabel: "The whole text of each step"}, lines, nil
	}
	words := Words{Target: g.phrase(ctx, w.scope.TabID, c.Mode.Name, p.args) + w.label}
	if d := longTexts([]actions.Step{{What: c.Mode.Name, Args: *p.args}}); d != "" {
		words.Detail, words.DetailLabel = d, "The whole text"
	}
	return words, nil, nil
}

// phrase says what one action does, naming its elements.
func (g *Gate) phrase(ctx context.Context, tab int, what string, a *actions.Args) string {
	desc := g.cfg.Describe(ctx, tab, actions.Target{Ref: a.Ref, Selector: a.Selector, Frame: a.Frame})
	to := ""
	if what == "drag" {
		to = g.cfg.Describe(ctx, tab, actions.Target{Ref: a.ToRef, Selector: a.ToSelector, Frame: a.Frame})
	}
	return Phrase(what, a, desc, to)
}

// refusal turns the engine's no (or "not yet") into the agent's error.
func refusal(c *mcpserver.Call, err error) *tools.Error {
	var re *approval.RequiredError
	if errors.As(err, &re) {
		r := re.Result()
		args := map[string]any{"what": c.Mode.Name, "approval_id": r.RequestID}
		for k, v := range c.Args {
			if k != "approval_id" {
				args[k] = v
			}
		}
		return &tools.Error{
			Code: approval.CodeRequired,
			Message: fmt.Sprintf("%s on %s needs the user's approval (request %s): ask the user to approve it in the Gasoline panel or with `gasoline-host approve %s`, then retry with approval_id and the same arguments",
				c.Mode.Key(), r.Scope, r.RequestID, r.RequestID),
			Retryable:  true,
			NextAction: &tools.Next{Tool: c.Mode.Tool, Arguments: args},
			Details:    r,
		}
	}
	code := approval.Code(err)
	if code == "" {
		code = tools.CodeInternal
	}
	return &tools.Error{Code: code, Message: err.Error(), Retryable: code == approval.CodePending || code == approval.CodeBusy}
}

// OriginOf is a URL's origin, lowercased ("" when it has none: about:blank, data:).
func OriginOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}
