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
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
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
	// dialog")`; "" when it cannot before ctx ends) and, with how
	// (actions.HowClick …), says what activating it does: the element's
	// form and where it submits, a link's address, a download. One round
	// trip, made only for a call the policy gates. With how, an empty
	// target is the focused element and a point the element drawn there.
	Describe func(ctx context.Context, tab int, t actions.Target, how string) actions.Seen
	// History is where back (-1) or forward (+1) would take a tab ("" when
	// it cannot tell).
	History func(ctx context.Context, tab, delta int) string
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
	// Words, when set, says in full what a call of a mode outside the
	// actions engine does (interact emulate and route, analyze
	// performance_trace: internal/devtools), or "" to leave it to the
	// gate's own words.
	Words func(c *mcpserver.Call) string
}

// Gate decides gated calls.
type Gate struct{ cfg Config }

// New returns a Gate.
func New(cfg Config) (*Gate, error) {
	if cfg.Approvals == nil || cfg.Tabs == nil || cfg.Describe == nil || cfg.History == nil || cfg.Page == nil || cfg.Configure == nil || cfg.Redact == nil { // PageTools is optional
		return nil, errors.New("gate: Config.Approvals, Tabs, Describe, History, Page, Configure and Redact are required")
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
	if c.Mode.PageTool {
		return g.pageTool(ctx, c, p)
	}
	if p.class == tools.ReadOnly {
		return nil // a batch of read-only steps
	}
	if p.proposal != nil {
		return g.decide(ctx, c, p, where{}, Words{}) // a plan acts on no tab
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
	return g.decide(ctx, c, p, w, cw)
}

// decide asks the policy; a call it gates is named, its risk decided,
// and the engine lets a grant or the plan cover it or asks the user.
func (g *Gate) decide(ctx context.Context, c *mcpserver.Call, p plan, w where, cw Words) *tools.Error {
	bare := g.bare(c, p, w)
	gated, err := g.cfg.Approvals.Gates(bare)
	if err != nil || !gated {
		// The policy decides alone: no one is asked, so nothing is named
		// (no round trip to the tab).
		g.cfg.Approvals.PolicyDecided(bare.SessionID, err)
		if err != nil {
			return refusal(c, err, bare)
		}
		return nil
	}
	req, e := g.request(ctx, c, bare, p, w, cw)
	if e != nil {
		return e
	}
	if _, err = g.cfg.Approvals.Require(ctx, req, timeout(c)); err != nil {
		return refusal(c, err, req)
	}
	return nil
}

// destination refuses, before anything is asked, a navigation to a page
// no agent may open (internal/scheme): file:, javascript:, data:,
// view-source:, an extension's page, a browser page.
func (g *Gate) destination(c *mcpserver.Call) *tools.Error {
	if !c.Mode.Tab.Destination() {
		return nil
	}
	u := c.Args.URL
	if u == "" && c.Mode.Tab == tools.TabNew {
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
	if c.Mode.Tab != tools.TabOpens || c.Args.Browser != "" && c.Args.TabID == 0 {
		return ""
	}
	if t, ok := g.cfg.Tabs.Resolve(c.Session.ID(), c.Args.TabID); ok {
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
	sid, tab, use := c.Session.ID(), c.Args.TabID, c.Mode.Tab
	if c.Mode.DrivesPage && use != tools.TabNew {
		_, hasTab := g.cfg.Tabs.Resolve(sid, 0)
		if !(use == tools.TabOpens && tab == 0 && !hasTab) {
			// close_tab may close a tab that went off-limits: it never
			// reads or drives the page.
			if e := g.cfg.Tabs.Check(sid, tab); e != nil && !(use == tools.TabAny && e.Code == scheme.Code) {
				return w, e
			}
		}
	}
	// new_tab, and navigate naming a browser, may open a tab: no tab of
	// now is named in the prompt.
	if t, ok := g.cfg.Tabs.Resolve(sid, tab); ok && use != tools.TabNew && (tab != 0 || c.Args.Browser == "") {
		w.scope.TabID = t
	}
	if u := c.Args.URL; u != "" {
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
	req := approval.Request{
		SessionID: c.Session.ID(), Action: c.Mode.Key(), Class: policy.Class(p.class), Scope: w.scope,
		Reason: "the agent called " + c.Mode.Key(), ApprovalID: c.Args.ApprovalID, Call: p.call,
	}
	for _, st := range p.steps {
		req.Modes = append(req.Modes, st.What)
	}
	return req
}

// request completes req (bare) with what the call does in words and the
// tab as the browser shows it, redacted, every control and bidi
// character made visible.
func (g *Gate) request(ctx context.Context, c *mcpserver.Call, req approval.Request, p plan, w where, cw Words) (approval.Request, *tools.Error) {
	sid := req.SessionID
	ctx, cancel := context.WithTimeout(ctx, describeWait)
	defer cancel()
	if w.scope.TabID != 0 && c.Mode.DrivesPage {
		pg, err := g.cfg.Page(ctx, w.scope.TabID)
		if err == nil {
			if err := scheme.Page(pg.URL); err != nil && c.Mode.Tab != tools.TabAny {
				return approval.Request{}, scheme.ToolError(c.Mode.Key()+" on tab "+fmt.Sprint(w.scope.TabID), err)
			}
			req.Page = &pg
		}
	}
	words, steps, looks, e := g.words(ctx, c, p, w, cw)
	if e != nil {
		return approval.Request{}, e
	}
	req.Risk = g.riskOf(ctx, c, p, w, looks)
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
	if p.proposal != nil {
		pp := *p.proposal
		pp.High = slices.Clone(pp.High)
		req.Plan = &pp
		fields = append(fields, &pp.Summary)
		for i := range pp.High {
			fields = append(fields, &pp.High[i].Words)
		}
	}
	fields = append(fields, &req.Risk.Why) // it quotes the page's controls
	for i := range req.Risk.Reasons {
		fields = append(fields, &req.Risk.Reasons[i].Why)
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
	req.Describe = c.Mode.Words
	req.Target, req.Steps, req.Notes = inert(words.Target, false), inertAll(steps), inertAll(words.Notes)
	req.Detail, req.DetailLabel = inert(words.Detail, true), words.DetailLabel
	req.PageWarning = inert(req.PageWarning, false)
	req.Risk.Why = inert(req.Risk.Why, false)
	if req.Plan != nil {
		req.Plan.Summary = inert(req.Plan.Summary, true)
		for i := range req.Plan.High {
			req.Plan.High[i].Words = inert(req.Plan.High[i].Words, false)
		}
	}
	for i := range req.Risk.Reasons {
		req.Risk.Reasons[i].Why = inert(req.Risk.Reasons[i].Why, false)
	}
	if req.Page != nil {
		req.Page.Title, req.Page.URL = inert(req.Page.Title, false), inert(req.Page.URL, false)
	}
	return req, nil
}

// words says what the call does (`click button "Pay now" on tab 7 (…)`)
// and, for a batch, each step; looks are its actions with their elements
// as the page shows them, for the call's risk.
func (g *Gate) words(ctx context.Context, c *mcpserver.Call, p plan, w where, cw Words) (Words, []string, []look, *tools.Error) {
	sid := c.Session.ID()
	redact := func(s string) (string, error) { return g.cfg.Redact(sid, s) }
	if g.cfg.Words != nil { // a mode outside the actions engine says in full what it does (internal/devtools)
		if s := g.cfg.Words(c); s != "" {
			return Words{Target: s + w.label}, nil, nil, nil
		}
	}
	switch {
	case p.pageTarget != "": // a page tool: pagetool.go
		return Words{Target: p.pageTarget + w.label}, p.pageLines, nil, nil
	case p.proposal != nil: // a plan: planmode.go
		return planWords(p.proposal), nil, nil, nil
	case c.Mode.Tool == "configure":
		if cw.Target == "" {
			cw.Target = c.Mode.Key()
		}
		return cw, nil, nil, nil
	case !c.Mode.DrivesPage:
		return Words{Target: c.Mode.Key() + w.label}, nil, nil, nil
	case c.Mode.Tab.Destination():
		verb := map[tools.TabUse]string{tools.TabOpens: "go to", tools.TabNew: "open a new tab on"}[c.Mode.Tab]
		nw, err := navWords(verb, c.Args.URL, g.from(c), redact)
		if err != nil {
			return Words{}, nil, nil, mcpserver.Blocked("the approval request", err)
		}
		nw.Target += w.label
		return nw, nil, nil, nil
	case c.Mode.Shows != "":
		return scriptWords(p.args, w.label), nil, nil, nil
	case w.scope.TabID == 0:
		return Words{Target: c.Mode.Key() + w.label}, nil, nil, nil
	}
	if p.steps != nil {
		lines := make([]string, len(p.steps))
		looks := make([]look, len(p.steps))
		for i, st := range p.steps {
			lines[i], looks[i] = g.phrase(ctx, w.scope.TabID, st.What, &st.Args)
		}
		return Words{Target: fmt.Sprintf("a batch of %d steps%s", len(lines), w.label), Detail: longTexts(p.steps), DetailLabel: "The whole text of each step"}, lines, looks, nil
	}
	line, l := g.phrase(ctx, w.scope.TabID, c.Mode.Name, p.args)
	words := Words{Target: line + w.label}
	if d := longTexts([]tools.Step{{What: c.Mode.Name, Args: *p.args}}); d != "" {
		words.Detail, words.DetailLabel = d, "The whole text"
	}
	return words, nil, []look{l}, nil
}

// phrase says what one action does, naming its elements, and looks at its
// target as its risk needs.
func (g *Gate) phrase(ctx context.Context, tab int, what string, a *tools.Args) (string, look) {
	l := g.lookAt(ctx, tab, what, a)
	desc := l.seen.Desc
	if what == "fill_form" {
		desc = "" // its fields are named by what the agent gave
	}
	if desc != "" && a.Ref == "" && a.Selector == "" && a.X != nil && a.Y != nil {
		desc += fmt.Sprintf(" at the point (%g, %g)", *a.X, *a.Y)
	}
	to := ""
	if what == "drag" {
		to = g.cfg.Describe(ctx, tab, actions.Target{Ref: a.ToRef, Selector: a.ToSelector, Frame: a.Frame}, "").Desc
	}
	return Phrase(what, a, desc, to), l
}

// RequiredDetails is approval_required's payload: the request, and the
// plan call that would let calls like it run without asking.
type RequiredDetails struct {
	approval.Required
	SuggestPlan *tools.Next `json:"suggest_plan,omitempty"`
}

// refusal turns the engine's no (or "not yet") into the agent's error;
// req is the request the engine answered.
func refusal(c *mcpserver.Call, err error, req approval.Request) *tools.Error {
	var re *approval.RequiredError
	if errors.As(err, &re) {
		r := re.Result()
		same := c.Args
		same.ApprovalID = ""
		raw, _ := json.Marshal(same)
		args := map[string]any{}
		json.Unmarshal(raw, &args) // the same arguments, with the approval's id
		args["what"], args["approval_id"] = c.Mode.Name, r.RequestID
		msg := fmt.Sprintf("%s on %s needs the user's approval (request %s): ask the user to approve it in the Gasoline panel or with `gasoline-host approve %s`, then retry with approval_id and the same arguments.",
			c.Mode.Key(), r.Scope, r.RequestID, r.RequestID)
		if r.OutsidePlan != "" {
			msg += " It is outside your approved plan: " + r.OutsidePlan + "."
		}
		details := RequiredDetails{Required: r}
		if hint := suggestPlan(c, re.Request); hint != nil {
			raw, _ := json.Marshal(hint.Arguments)
			msg += fmt.Sprintf(" Several changes to make on %s? Propose a plan the user approves once, then such calls run without asking: interact %s (describe_capabilities interact plan says more).",
				re.Request.Scope.Origin, raw)
			details.SuggestPlan = hint
		}
		return &tools.Error{Code: approval.CodeRequired, Message: msg, Retryable: true,
			NextAction: &tools.Next{Tool: c.Mode.Tool, Arguments: args}, Details: details}
	}
	code := approval.Code(err)
	if code == "" {
		code = tools.CodeInternal
	}
	return &tools.Error{Code: code, Message: err.Error(), Retryable: code == approval.CodePending || code == approval.CodeBusy}
}

// commonPlanActions are what a plan usually names besides the call's own
// mode.
var commonPlanActions = []string{"navigate", "click", "type", "key_press", "select", "check"}

// suggestPlan is the plan call an agent could make instead of asking for
// each change like req on its site, or nil when a plan could not cover
// it (a sensitive call, no web origin, a call whose effect could not be
// read, a risk on another origin).
func suggestPlan(c *mcpserver.Call, req approval.Request) *tools.Next {
	if c.Mode.Tool != "interact" || req.Plan != nil || !slices.Contains(req.Offers, approval.Action) {
		return nil
	}
	if _, err := approval.PlanOrigin(req.Scope.Origin); err != nil {
		return nil
	}
	acts := slices.Clone(commonPlanActions)
	for _, m := range append([]string{c.Mode.Name}, req.Modes...) {
		if !slices.Contains(acts, m) {
			acts = append(acts, m)
		}
	}
	args := map[string]any{"what": "plan", "intent": "<what you will do, in a sentence or two>",
		"origins": []string{req.Scope.Origin}, "actions": acts, "minutes": DefaultPlanMinutes}
	var high []map[string]string
	for _, r := range req.Risk.Reasons {
		if r.Kind == approval.RiskNamed || r.Kind == approval.RiskSubmit || r.Kind == approval.RiskDownload {
			high = append(high, map[string]string{"what": r.Mode, "risk": r.Kind, "target": r.To})
		}
	}
	if high != nil {
		args["high"] = high // the user must tick each
	}
	return &tools.Next{Tool: "interact", Arguments: args}
}

// OriginOf is a URL's origin, lowercased ("" when it has none: about:blank, data:).
func OriginOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}
