package gate

import (
	"context"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// PageToolMode is interact call_page_tool: a tool the page registered
// with WebMCP. Its table class is mutating; the page's tool decides the
// rest (PageTools.Plan): a tool the page marked read-only runs without
// asking (logged), any other asks, and the prompt's words are written
// beside the mode (internal/pagetools/prompt.go).
const PageToolMode = "interact.call_page_tool"

// PageTools plans calls of a page's own tools (*pagetools.Manager).
type PageTools interface {
	// Plan finds the tool the call names on the tab's page, checks the
	// arguments against the page's schema, and says what the user is
	// asked; an error refuses the call before anyone is asked.
	Plan(ctx context.Context, c *mcpserver.Call, tab int) (PagePlan, *tools.Error)
	// Unasked records, in the audit log, a call that runs without asking
	// because the page marked the tool read-only.
	Unasked(c *mcpserver.Call, req approval.Request)
}

// PagePlan is what the gate needs to know of one page tool call.
type PagePlan struct {
	// ReadOnly: the page marked the tool readOnlyHint. The call is then
	// read-only for the policy: no one is asked unless a rule gates it.
	ReadOnly bool
	// High marks a call that submits a page's form by itself (a form tool
	// with toolautosubmit). RISK TIERS (issue 30): approvals have no tiers
	// yet, so today it is asked like any mutating call; the tiered engine
	// should class it high.
	High bool
	// Target is what the call does, in words (the page's tool name quoted
	// as the page's); Lines are the prompt's other lines: the exact
	// arguments, and the page's description labelled as the page's words.
	Target string
	Lines  []string
	// Def fingerprints the tool's definition as the user is shown it: an
	// approval holds for that definition only.
	Def string
}

// pageTool is Check for a page tool call.
func (g *Gate) pageTool(ctx context.Context, c *mcpserver.Call, p plan) *tools.Error {
	if g.cfg.PageTools == nil {
		return tools.Errorf(tools.CodeNotAvailable, "interact call_page_tool is not served by this daemon")
	}
	w, e := g.where(c)
	if e != nil {
		return e
	}
	pp, e := g.cfg.PageTools.Plan(ctx, c, w.scope.TabID)
	if e != nil {
		return e
	}
	p.call += "+" + pp.Def
	if pp.ReadOnly {
		p.class = tools.ReadOnly
	}
	p.pageTarget, p.pageLines = pp.Target, pp.Lines
	bare := g.bare(c, p, w)
	gated, err := g.cfg.Approvals.Gates(bare)
	if err != nil {
		return refusal(c, err)
	}
	if !gated {
		if pp.ReadOnly {
			words, steps, _ := g.words(ctx, c, p, w, Words{})
			bare.Target, bare.Steps = words.Target, steps
			g.cfg.PageTools.Unasked(c, bare)
		}
		return nil
	}
	req, e := g.request(ctx, c, bare, p, w, Words{})
	if e != nil {
		return e
	}
	if _, err := g.cfg.Approvals.Require(ctx, req, timeout(c)); err != nil {
		return refusal(c, err)
	}
	return nil
}
