package bridge

import (
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/analyze"
	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// newAnalyzer builds the analyze modes and generate sarif
// (internal/analyze) over the relay state, the snapshot refs, the tab
// action queues and the safety core.
func (s *Server) newAnalyzer(b *browser) *analyze.Analyzer {
	self := []string{fmt.Sprintf("http://127.0.0.1:%d", s.port), fmt.Sprintf("http://[::1]:%d", s.port), fmt.Sprintf("http://localhost:%d", s.port)}
	return analyze.New(analyze.Config{Tabs: b.tabs, Store: b.store, Link: s.links, Snapshots: b.act.Snapshots(), Lock: b.act.Lock,
		Engine: s.safe.Engine, Egress: s.safe.Egress(), Capture: b.obs.Capture, Secrets: s.safe.MaskSelectors, Denied: s.linkDenied, Dir: s.cfg.Dir, Self: self, Logger: s.log})
}

// linkDenied reports whether link_health may not request origin: the
// approval policy denies analyze.link_health there, or it cannot tell
// (the policy file is broken).
func (s *Server) linkDenied(origin string) bool {
	eff, _, err := s.safe.Policy.Evaluate(policy.ReadOnly, "analyze.link_health", origin)
	return err != nil || eff == policy.Deny
}
