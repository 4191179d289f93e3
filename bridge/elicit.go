package bridge

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/approval"
)

// MCP elicitation as a second way to ask the user (SAFETY.md: "pushed to
// the agent panel, and to the MCP client by elicitation where the client
// supports it"). The panel stays the primary path; whichever answers first
// decides, and the other prompt is withdrawn (the elicitation's context
// ends when the call stops waiting).

// Elicitation answers: the schema's one field and its values.
const (
	elicitField    = "decision"
	elicitOnce     = "approve_once"
	elicitSite     = "approve_site_30m"
	elicitDeny     = "deny"
	elicitSiteMins = 30
)

// canElicit reports whether the MCP client declared elicitation support.
func canElicit(peer *mcp.ServerSession) bool {
	if peer == nil {
		return false
	}
	p := peer.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// elicitor asks through one client for one gated call. start runs at most
// once (from approval.Request.OnPending); stop withdraws the question and
// waits for the asking goroutine.
type elicitor struct {
	s      *Server
	peer   *mcp.ServerSession
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	wg     sync.WaitGroup
}

func (s *Server) newElicitor(ctx context.Context, peer *mcp.ServerSession) *elicitor {
	ctx, cancel := context.WithCancel(ctx)
	return &elicitor{s: s, peer: peer, ctx: ctx, cancel: cancel}
}

func (e *elicitor) start(r approval.Request) {
	e.once.Do(func() { e.wg.Go(func() { e.ask(r) }) })
}

func (e *elicitor) stop() {
	e.cancel()
	e.wg.Wait()
}

// ask sends one elicitation and applies the user's answer. A client that
// cannot answer (an error, cancel) leaves the request to the panel.
func (e *elicitor) ask(r approval.Request) {
	res, err := e.peer.Elicit(e.ctx, elicitParams(r))
	if err != nil {
		if e.ctx.Err() == nil {
			e.s.log.Info("elicitation failed; the panel still asks", "request", r.RequestID, "err", err)
		}
		return
	}
	decision, _ := res.Content[elicitField].(string)
	switch {
	case res.Action == "decline", res.Action == "accept" && decision == elicitDeny:
		err = e.s.safe.approvals.Deny(r.RequestID, "denied in the MCP client")
	case res.Action == "accept" && decision == elicitOnce:
		_, err = e.s.safe.approvals.Approve(r.RequestID, approval.Decision{Kind: approval.Once})
	case res.Action == "accept" && decision == elicitSite && r.SiteGrantable:
		_, err = e.s.safe.approvals.Approve(r.RequestID, approval.Decision{Kind: approval.Site, Minutes: elicitSiteMins})
	default:
		return // cancel or an answer outside the schema: the panel decides
	}
	if err != nil {
		e.s.log.Info("elicitation answer not applied", "request", r.RequestID, "err", err)
	}
}

// elicitParams is the form shown by the client: what, where, and a choice.
func elicitParams(r approval.Request) *mcp.ElicitParams {
	where := r.Scope.String()
	if r.Scope.Origin != "" {
		where += " " + r.Scope.Origin
	}
	what := r.Action
	if r.Target != "" {
		what = r.Target
	}
	choices := []string{elicitOnce, elicitDeny}
	if r.SiteGrantable {
		choices = []string{elicitOnce, elicitSite, elicitDeny}
	}
	warn := ""
	if r.PageWarning != "" {
		warn = " WARNING: " + r.PageWarning
	}
	return &mcp.ElicitParams{
		Message: fmt.Sprintf("Gasoline: the agent wants to run %s — %s (%s).%s Allow it? (request %s; the Gasoline panel shows it too)",
			r.Action, what, where, warn, r.RequestID),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				elicitField: map[string]any{"type": "string", "title": "Decision", "enum": choices},
			},
			"required": []string{elicitField},
		},
	}
}
