package tools

// Some modes classified mutating have an op that only reads (viewing the
// approval policy, the redaction settings, agent_watch's status). Such a
// call is read-only: it needs no approval. The table is here, beside the
// classification, so the two cannot drift apart.
var readOps = map[string]string{
	"configure.policy":      "get",
	"configure.redaction":   "get",
	"configure.agent_watch": "status",
	"configure.noise_rule":  "list",
}

// ReadsOnly reports whether the call only reads: a read-only mode, or a
// gated mode whose op is its read op.
func (c *Call) ReadsOnly() bool {
	if !c.Mode.Class.Gated() {
		return true
	}
	op, ok := readOps[c.Mode.Key()]
	return ok && c.Str("op") == op
}
