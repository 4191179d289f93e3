package safety

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// Register serves the modes backed by the safety core: observe approvals
// (this session's pending requests, live grants, unused approvals, its
// plan and how its gated calls went), interact plan (what the approved
// plan covers), configure policy, redaction and audit_log.
func (c *Core) Register(m *mcpserver.Server) {
	m.Handle("configure", "redaction", c.configureRedaction)
	m.Handle("observe", "approvals", func(ctx context.Context, call *mcpserver.Call) (any, error) {
		id := call.Session.ID()
		pending := c.Approvals.Pending(id)
		page := new(untrusted.Page)
		for _, r := range pending {
			requestPage(page, r)
		}
		out := map[string]any{
			"pending": pending,
			"grants":  c.Approvals.Grants(id),
			"tokens":  c.Approvals.Tokens(id),
			"counts":  c.Approvals.Counts(id),
		}
		if ps := c.Approvals.Plans(id); len(ps) > 0 {
			out["plan"] = ps[0]
		}
		return mcpserver.PageResult("", out, page)
	})
	m.Handle("interact", "plan", c.interactPlan)
	m.Handle("configure", "policy", c.configurePolicy)
	m.Handle("configure", "audit_log", func(ctx context.Context, call *mcpserver.Call) (any, error) {
		f := audit.Filter{SessionID: call.Session.ID()}
		if cur := call.Args.AfterCursor; cur != "" {
			n, err := strconv.ParseUint(cur, 10, 64)
			if err != nil {
				return nil, tools.Errorf(tools.CodeInvalidArgument, "after_cursor %q is not a cursor from an earlier audit_log answer", cur)
			}
			f.AfterSeq = n
		}
		entries, err := c.Audit.Read(f, cmp.Or(call.Args.Limit, 100))
		if err != nil {
			return nil, err
		}
		page := new(untrusted.Page)
		for _, e := range entries {
			page.AddQuoted(e.Target).Add(e.Page)
			for _, l := range slices.Concat(e.Steps, e.Notes) {
				page.AddQuoted(l)
			}
		}
		return mcpserver.PageResult("", map[string]any{"entries": entries}, page)
	})
}

// requestPage adds what an approval request quotes from pages to page:
// the names and texts its target, steps and notes quote (%q: an element's
// name, a title, a page tool's description), the tab's title and address
// and its origin. The rest is Gasoline's words (what the mode does, the
// notes around the quotes, the page warning that reports a finding) or
// the agent's (its reason, a script, an address it asked for): the
// instruction scanner reads none of it ("asks to send data to another
// site or address", a family's name in the warning, read as an
// instruction).
func requestPage(page *untrusted.Page, r approval.Request) {
	page.AddQuoted(r.Target)
	for _, l := range slices.Concat(r.Steps, r.Notes) {
		page.AddQuoted(l)
	}
	if r.Page != nil {
		page.Add(r.Page.Title, r.Page.URL)
	}
	page.Add(r.Scope.Origin)
}

func (c *Core) configurePolicy(ctx context.Context, call *mcpserver.Call) (any, error) {
	if call.Args.Op == "get" {
		p, err := c.Policy.Current()
		out := map[string]any{"file": c.Policy.Path(), "policy": p}
		if err != nil {
			out["error"] = err.Error() + " (mutating calls are refused until the file is fixed)"
		}
		return out, nil
	}
	// op set: already approved by the user through the gate. `rules` is
	// the policy document, {"rules":[…]}, as in policy.json. It is
	// compared again with the policy in force now: it may only tighten it.
	p, _, e := c.policyChange(call)
	if e != nil {
		return nil, e
	}
	saved, err := c.Policy.Replace(p)
	if err != nil {
		return nil, err
	}
	return map[string]any{"file": c.Policy.Path(), "policy": saved}, nil
}

// interactPlan answers interact plan once the user approved it (the gate
// asked): the session's plan as the user approved it — the high-risk
// items the user ticked only — and what still asks.
func (c *Core) interactPlan(ctx context.Context, call *mcpserver.Call) (any, error) {
	ps := c.Approvals.Plans(call.Session.ID())
	if len(ps) == 0 {
		return nil, tools.Errorf("plan_ended", "the user approved the plan, but it has ended already (revoked in the panel, or its time ran out); propose it again if you still need it")
	}
	p := ps[0]
	return map[string]any{
		"plan_id": p.PlanID, "intent": p.Summary, "origins": p.Origins, "actions": p.Actions,
		"high_ticked": p.High, "expires_at": p.ExpiresAt,
		"note": "Calls of these modes on these origins now run without asking until the plan ends or the user revokes it. " +
			"Still asked each time: other origins, other modes, high-risk calls the user did not tick (forms that submit, downloads, controls named like pay or delete), execute_js and upload. " +
			"observe approvals shows the plan and the counts.",
	}, nil
}
