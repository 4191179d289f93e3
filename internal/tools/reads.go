package tools

// ReadsOnly reports whether the call only reads: a read-only mode, or a
// gated mode called with its read op (Mode.ReadOp: viewing the approval
// policy, the redaction settings, agent_watch's status). Such a call
// needs no approval.
func (c *Call) ReadsOnly() bool {
	if !c.Mode.Class.Gated() {
		return true
	}
	return c.Mode.ReadOp != "" && c.Args.Op == c.Mode.ReadOp
}
