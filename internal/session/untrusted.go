package session

import "github.com/gasoline-mcp/gasoline/internal/untrusted"

// PageNonce returns the nonce that fences page text in this session's
// results: random (crypto/rand), made on first use, the same for the
// session's life, never sent to a page.
func (s *Session) PageNonce() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nonce == "" {
		s.nonce = untrusted.NewNonce()
	}
	return s.nonce
}

// SetPageWarning records that a result this session received carried
// instruction-like page text: w (untrusted.ApprovalWarning) is what its
// approval requests say from now on, beside the action. The latest wins.
func (s *Session) SetPageWarning(w string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageWarning = w
}

// PageWarning returns what the session's approval requests say about the
// page text it received, or "" when nothing read like an instruction.
func (s *Session) PageWarning() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pageWarning
}
