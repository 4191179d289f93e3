package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/audit"
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
		ApprovalID: ev.ApprovalID, Reason: ev.Reason,
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
