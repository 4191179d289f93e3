package session

// SetPageWarning records that a result this session received carried
// instruction-like page text: w (untrusted.ApprovalWarning) is what its
// approval requests say from now on, beside the action. The latest wins.
// (The fence around page text has a new nonce for every result:
// internal/mcpserver/fence.go.)
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
