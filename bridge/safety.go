package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// safety is the daemon's approval engine, policy and audit log, built once
// in Run. The engine's Run goroutine is owned by the daemon's context.
type safety struct {
	policy    *policy.Store
	approvals *approval.Engine
	audit     *audit.Log
	red       redaction
}

func (s *Server) startSafety(ctx context.Context) error {
	s.startRedaction()
	// Everything the daemon logs from here on passes the server stage.
	s.log = slog.New(&redactingHandler{inner: s.log.Handler(), gw: s.safe.red.server})
	ppath, err := policyPath(s.cfg.Dir)
	if err != nil {
		return err
	}
	s.safe.policy = policy.Open(ppath)
	if err := s.safe.policy.Err(); err != nil {
		// Fail closed but keep serving: reads work, changes are refused
		// with this reason until the file is fixed.
		s.log.Error("approval policy unusable; mutating calls are refused until it is fixed", "file", ppath, "err", err)
	}
	s.safe.audit, err = audit.Open(auditPath(s.cfg.Dir), &audit.Options{Redact: s.auditRedact})
	if err != nil {
		return fmt.Errorf("bridge: opening audit log: %w", err)
	}
	s.safe.approvals, err = approval.New(&approval.Options{
		Policy:   s.safe.policy,
		Observer: s.auditApproval,
	})
	if err != nil {
		return err
	}
	return nil
}

// auditApproval records one approval event. It runs under the engine's
// lock: one buffered append, no waiting.
func (s *Server) auditApproval(ev approval.Event) {
	e := audit.Entry{
		Time: ev.Time, Kind: "approval", SessionID: ev.Request.SessionID, Action: ev.Request.Action,
		Class: string(ev.Request.Class), Decision: string(ev.Type), RequestID: ev.Request.RequestID,
		ApprovalID: ev.ApprovalID, Reason: ev.Reason, Warning: ev.Request.PageWarning,
	}
	if err := s.safe.audit.Write(e); err != nil {
		s.log.Error("audit write failed", "err", err)
	}
}

// auditCall records one tool call: never its arguments or result.
func (s *Server) auditCall(sessionID, key string, class tools.Class, d time.Duration, failed bool) error {
	result := "ok"
	if failed {
		result = "error"
	}
	return s.safe.audit.Write(audit.Entry{
		Time: time.Now(), Kind: "call", SessionID: sessionID, Action: key,
		Class: string(class), DurationMS: d.Milliseconds(), Result: result,
	})
}

// gate is the dispatcher's approval hook for mutating and sensitive modes.
// It waits for the user up to the call's budget; past it the agent gets the
// structured approval_required request and retries with approval_id.
func (s *Server) gate(ctx context.Context, c *mcpserver.Call) *tools.Error {
	if readOnlyUse(c) {
		return nil
	}
	if e := s.browser.precheck(c); e != nil {
		return e // a tab the session cannot use: nothing to approve
	}
	scope, target := s.scopeOf(c)
	// The prompt is an output like any other: the user, the panel, the
	// audit log and the MCP client see the redacted target.
	target, err := s.redactText(c.Session.ID(), target)
	if err != nil {
		return blockedError("the approval request", err)
	}
	req := approval.Request{
		SessionID:  c.Session.ID(),
		Action:     c.Mode.Key(),
		Class:      policy.Class(c.Mode.Class),
		Scope:      scope,
		Target:     target,
		Reason:     "the agent called " + c.Mode.Key(),
		ApprovalID: c.Str("approval_id"),
		// Page text this session received read like instructions to an
		// AI: the user sees it beside the action (internal/untrusted).
		PageWarning: c.Session.PageWarning(),
	}
	if canElicit(c.Peer) {
		el := s.newElicitor(ctx, c.Peer)
		defer el.stop()
		req.OnPending = el.start
	}
	_, err = s.safe.approvals.Require(ctx, req, time.Duration(c.TimeoutMS)*time.Millisecond)
	if err == nil {
		return nil
	}
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
			Message: fmt.Sprintf("%s on %s needs the user's approval (request %s): ask the user to approve it in the Gasoline panel or with `gasoline-host approve %s`, then retry with approval_id",
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
	return &tools.Error{Code: code, Message: err.Error(), Retryable: code == "approval_pending" || code == "approval_busy"}
}

// readOnlyUse reports calls of a mutating mode that only read: viewing the
// policy or the redaction settings.
func readOnlyUse(c *mcpserver.Call) bool {
	switch c.Mode.Key() {
	case "configure.policy", "configure.redaction":
		return c.Str("op") == "get"
	case "configure.agent_watch":
		return c.Str("op") == "status"
	}
	return false
}

// scopeOf names what a call acts on: the tab and its origin, and a line
// for the approval prompt. Navigation is scoped to its destination. The
// tab manager refines this for element targets.
func (s *Server) scopeOf(c *mcpserver.Call) (approval.Scope, string) {
	if s.scoper != nil {
		return s.scoper(c)
	}
	var sc approval.Scope
	if u := c.Str("url"); u != "" {
		sc.Origin = originOf(u)
		return sc, c.Mode.Key() + " to " + sc.Origin
	}
	return sc, c.Mode.Key()
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}
