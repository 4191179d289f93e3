package bridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/terminal"
)

// The agent panel's side of the extension link (docs/PROTOCOL.md, "Agent
// panel"): the panel is UI only; it lists and decides approvals and reads
// status through these methods, and hears approval events pushed here.

// servePanel answers the extension's panel requests (each in its own
// goroutine, off the link's reader; ctx ends with the link).
func (s *Server) servePanel(ctx context.Context, l *extlink.Link, method string, params json.RawMessage) (any, *protocol.Error) {
	switch method {
	case "approvals.list":
		return map[string]any{"pending": s.safe.approvals.Pending("")}, nil
	case "approvals.decide":
		return s.decide(params)
	case "panel.chat", "panel.history", "panel.providers", "panel.export":
		return s.serveAgentPanel(ctx, l, method, params)
	case "panel.status":
		return s.panelStatus(), nil
	}
	if terminal.Handles(method) {
		return s.terms.Serve(ctx, l, method, params)
	}
	return nil, protocol.Errorf(protocol.CodeUnknownMethod, false, "the daemon has no method %q", method)
}

type decideParams struct {
	RequestID string `json:"request_id"`
	Decision  string `json:"decision"` // once | site | deny
	Minutes   int    `json:"minutes"`
	Reason    string `json:"reason"`
}

func (s *Server) decide(raw json.RawMessage) (any, *protocol.Error) {
	var p decideParams
	if err := json.Unmarshal(raw, &p); err != nil || p.RequestID == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "approvals.decide needs request_id and decision (once, site or deny)")
	}
	switch p.Decision {
	case "deny":
		if p.Reason == "" {
			p.Reason = "denied in the Gasoline panel"
		}
		if err := s.safe.approvals.Deny(p.RequestID, p.Reason); err != nil {
			return nil, approvalErr(err)
		}
		return map[string]any{"denied": true}, nil
	case "once", "site":
		d := approval.Decision{Kind: approval.Once}
		if p.Decision == "site" {
			d = approval.Decision{Kind: approval.Site, Minutes: p.Minutes}
		}
		tok, err := s.safe.approvals.Approve(p.RequestID, d)
		if err != nil {
			return nil, approvalErr(err)
		}
		return map[string]any{"approval_id": tok.ApprovalID, "expires_at": tok.ExpiresAt}, nil
	}
	return nil, protocol.Errorf(protocol.CodeBadRequest, false, "decision must be once, site or deny, not %q", p.Decision)
}

func approvalErr(err error) *protocol.Error {
	code := approval.Code(err)
	if code == "" {
		code = protocol.CodeInternal
	}
	return &protocol.Error{Code: code, Message: err.Error()}
}

// panelStatus is what the panel shows about the daemon: health, the
// sessions it serves, and the redaction counters (policy_version,
// redacted_count, blocked_count of every session, by stage and class).
func (s *Server) panelStatus() map[string]any {
	out := map[string]any{"health": s.Health(), "pending_approvals": len(s.safe.approvals.Pending("")),
		"redaction": s.safe.red.status("")}
	if p, err := s.safe.policy.Current(); err == nil {
		out["policy_version"] = p.Version
	} else {
		out["policy_error"] = err.Error()
	}
	return out
}

// pushApprovals forwards every approval event to the connected extensions
// (the panel) until ctx ends.
func (s *Server) pushApprovals(ctx context.Context) {
	events, stop := s.safe.approvals.Subscribe()
	defer stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			s.links.Broadcast(wctx, "approval.event", ev)
			cancel()
		case <-ctx.Done():
			return
		}
	}
}
