// Package safety is the daemon's safety core (SAFETY.md) as one piece: the
// approval policy and engine, the audit log, and the redaction gateway —
// one live policy shared with the native host's source stage, the server
// and egress stages over it, and the per-session counters — plus the tool
// modes that show or change them (observe approvals, configure policy,
// redaction and audit_log). The daemon builds it first; every output path
// goes through it.
package safety

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Core is the safety core of one daemon.
type Core struct {
	Policy    *policy.Store
	Approvals *approval.Engine
	Audit     *audit.Log
	red       redaction
	log       *slog.Logger
}

// Start builds the core for a state directory. It returns the core and
// log wrapped so that every record passes the server stage (the daemon
// logs through it from then on). A broken policy file fails closed but
// does not stop the daemon: reads work, changes are refused until it is
// fixed.
func Start(dir string, log *slog.Logger) (*Core, *slog.Logger, error) {
	c := &Core{}
	c.startRedaction(dir, log)
	log = slog.New(&redactingHandler{inner: log.Handler(), gw: c.red.server})
	c.log = log
	ppath, err := policyPath(dir)
	if err != nil {
		return nil, nil, err
	}
	c.Policy = policy.Open(ppath)
	if err := c.Policy.Err(); err != nil {
		log.Error("approval policy unusable; mutating calls are refused until it is fixed", "file", ppath, "err", err)
	}
	c.Audit, err = audit.Open(AuditPath(dir), &audit.Options{Redact: func(s string) (string, error) { return c.RedactText("", s) }})
	if err != nil {
		return nil, nil, fmt.Errorf("safety: opening the audit log: %w", err)
	}
	c.Approvals, err = approval.New(&approval.Options{Policy: c.Policy, Observer: c.auditApproval})
	if err != nil {
		c.Audit.Close()
		return nil, nil, err
	}
	return c, log, nil
}

// ForgetSession drops what the safety core keeps of a session that ended:
// its pending approval requests expire (waking their calls), its tokens
// and site grants go, and so do its redaction counters (the total keeps
// what they counted).
func (c *Core) ForgetSession(sessionID string) {
	c.Approvals.Forget(sessionID)
	c.red.forget(sessionID)
}

// Close closes the audit log.
func (c *Core) Close() error { return c.Audit.Close() }

// auditApproval records one approval event. It runs under the engine's
// lock: one buffered append, no waiting.
func (c *Core) auditApproval(ev approval.Event) {
	e := audit.Entry{
		Time: ev.Time, Kind: "approval", SessionID: ev.Request.SessionID, Action: ev.Request.Action,
		Class: string(ev.Request.Class), Decision: string(ev.Type), RequestID: ev.Request.RequestID,
		ApprovalID: ev.ApprovalID, Target: ev.Request.Target, Steps: ev.Request.Steps, Reason: ev.Reason,
		Warning: ev.Request.PageWarning,
	}
	if ev.Type == approval.Requested {
		// The whole prompt once, when it is shown; later events name the
		// request by its id.
		e.Describe, e.Notes, e.Detail = ev.Request.Describe, ev.Request.Notes, ev.Request.Detail
		if p := ev.Request.Page; p != nil {
			e.Page = fmt.Sprintf("%q %s", p.Title, p.URL)
		}
	}
	if err := c.Audit.Write(e); err != nil {
		c.log.Error("audit write failed", "err", err)
	}
}

// AuditCall records one tool call (mcpserver.Options.Audit): never its arguments or result.
func (c *Core) AuditCall(sessionID, key string, class tools.Class, d time.Duration, failed bool) error {
	result := "ok"
	if failed {
		result = "error"
	}
	return c.Audit.Write(audit.Entry{
		Time: time.Now(), Kind: "call", SessionID: sessionID, Action: key,
		Class: string(class), DurationMS: d.Milliseconds(), Result: result,
	})
}

// policyPath is $GASOLINE_POLICY, else policy.json in the state dir.
func policyPath(dir string) (string, error) {
	if p := os.Getenv("GASOLINE_POLICY"); p != "" {
		return filepath.Abs(p)
	}
	return filepath.Join(dir, "policy.json"), nil
}

// AuditPath is the audit log in a state directory.
func AuditPath(dir string) string { return filepath.Join(state.LogDir(dir), "audit.jsonl") }
