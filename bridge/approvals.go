package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The user's side of approvals over HTTP: `gasoline-host approve|deny`
// decides pending requests here (the panel does the same through the
// extension link). These endpoints take the approver credential only
// (routes.go) and are never MCP tools: an agent cannot decide its own
// request.

func (s *Server) handleListApprovals(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"pending": s.safe.approvals.Pending(""), "grants": s.safe.approvals.Grants("")})
}

// handleRevoke ends a site grant before its time.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	if err := s.safe.approvals.Revoke(r.PathValue("id")); err != nil {
		writeJSON(w, statusFor(err), map[string]string{"error": err.Error(), "code": approval.Code(err)})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleApprove(w http.ResponseWriter, r *http.Request) {
	d := approval.Decision{Kind: approval.Once}
	if err := readJSON(r, &d); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	tok, err := s.safe.approvals.Approve(r.PathValue("id"), d)
	if err != nil {
		writeJSON(w, statusFor(err), map[string]string{"error": err.Error(), "code": approval.Code(err)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"approval_id": tok.ApprovalID, "expires_at": tok.ExpiresAt})
}

func (s *Server) handleDeny(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Reason string `json:"reason"`
	}
	if err := readJSON(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if body.Reason == "" {
		body.Reason = "denied by the user"
	}
	if err := s.safe.approvals.Deny(r.PathValue("id"), body.Reason); err != nil {
		writeJSON(w, statusFor(err), map[string]string{"error": err.Error(), "code": approval.Code(err)})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func statusFor(err error) int {
	if errors.Is(err, approval.ErrUnknown) {
		return http.StatusNotFound
	}
	return http.StatusConflict
}

// readJSON decodes an optional small JSON body.
func readJSON(r *http.Request, v any) error {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil || len(raw) == 0 {
		return err
	}
	return json.Unmarshal(raw, v)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// safetyModes registers the MCP modes backed by the safety core.
func (s *Server) safetyModes(m *mcpserver.Server) {
	s.redactionModes(m)
	m.Handle("observe", "approvals", func(ctx context.Context, c *mcpserver.Call) (any, error) {
		id := c.Session.ID()
		return map[string]any{
			"pending": s.safe.approvals.Pending(id),
			"grants":  s.safe.approvals.Grants(id),
			"tokens":  s.safe.approvals.Tokens(id),
		}, nil
	})
	m.Handle("configure", "policy", s.configurePolicy)
	m.Handle("configure", "audit_log", func(ctx context.Context, c *mcpserver.Call) (any, error) {
		f := audit.Filter{SessionID: c.Session.ID()}
		if cur := c.Str("after_cursor"); cur != "" {
			n, err := strconv.ParseUint(cur, 10, 64)
			if err != nil {
				return nil, tools.Errorf(tools.CodeInvalidArgument, "after_cursor %q is not a cursor from an earlier audit_log answer", cur)
			}
			f.AfterSeq = n
		}
		entries, err := s.safe.audit.Read(f, c.Int("limit", 100))
		if err != nil {
			return nil, err
		}
		return map[string]any{"entries": entries}, nil
	})
}

func (s *Server) configurePolicy(ctx context.Context, c *mcpserver.Call) (any, error) {
	if c.Str("op") == "get" {
		p, err := s.safe.policy.Current()
		out := map[string]any{"file": s.safe.policy.Path(), "policy": p}
		if err != nil {
			out["error"] = err.Error() + " (mutating calls are refused until the file is fixed)"
		}
		return out, nil
	}
	// op set: already approved by the user through the gate. `rules` is
	// the policy document, {"rules":[…]}, as in policy.json.
	raw, err := json.Marshal(c.Args["rules"])
	if err != nil {
		return nil, err
	}
	p, err := policy.Parse(raw)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "rules: %v", err)
	}
	saved, err := s.safe.policy.Replace(p)
	if err != nil {
		return nil, err
	}
	return map[string]any{"file": s.safe.policy.Path(), "policy": saved}, nil
}
