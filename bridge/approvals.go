package bridge

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/gasoline-mcp/gasoline/internal/approval"
)

// The user's side of approvals over HTTP: `gasoline-host approve|deny`
// decides pending requests here (the panel does the same through the
// extension link). These endpoints take the approver credential only
// (routes.go) and are never MCP tools: an agent cannot decide its own
// request.

func (s *Server) handleListApprovals(w http.ResponseWriter, r *http.Request) {
	a := s.safe.Approvals
	writeJSON(w, http.StatusOK, map[string]any{"pending": a.Pending(""), "grants": a.Grants(""), "plans": a.Plans(""), "total": a.Counts("")})
}

// handleRevoke ends a grant or a plan before its time.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	if err := s.safe.Approvals.Revoke(r.PathValue("id")); err != nil {
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
	tok, err := s.safe.Approvals.Approve(r.PathValue("id"), d)
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
	if err := s.safe.Approvals.Deny(r.PathValue("id"), body.Reason); err != nil {
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
