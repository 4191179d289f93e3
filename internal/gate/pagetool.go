package gate

import (
	"context"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// A mode whose definition says PageTool (interact call_page_tool) calls a
// tool the page registered with WebMCP. Its table class is mutating; the
// page's tool decides the rest (PageTools.Plan): a tool the page marked
// read-only runs without asking (logged), any other asks, and the
// prompt's words are written beside the mode (internal/pagetools/prompt.go).

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
	// with toolautosubmit): its risk is high (risk.go), so a grant or a
	// plan covers it only where the user chose exactly that.
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
	p.pageTarget, p.pageLines, p.pageHigh = pp.Target, pp.Lines, pp.High
	if pp.ReadOnly {
		bare := g.bare(c, p, w)
		gated, err := g.cfg.Approvals.Gates(bare)
		if err == nil && !gated {
			g.cfg.Approvals.PolicyDecided(bare.SessionID, nil)
			words, steps, _, _ := g.words(ctx, c, p, w, Words{})
			bare.Target, bare.Steps = words.Target, steps
			g.cfg.PageTools.Unasked(c, bare)
			return nil
		}
	}
	return g.decide(ctx, c, p, w, Words{})
}
