package bridge

import (
	"time"

	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

// restAfter is how long the daemon must see no tool call, no HTTP request
// and no message from a browser before it hands back what the last burst
// left behind (memory.Release: a collection, the free heap returned to the
// system, the binary's clean pages unmapped), as the native host does.
const restAfter = 5 * time.Second

// releaseAtMost is the longest the daemon goes without that release while
// calls never stop (agents polling for hours): resident memory then
// follows the live heap instead of the high-water mark of the busiest
// minute. A release costs a collection (a few milliseconds at the
// daemon's ~25 MiB live heap) once a minute.
const releaseAtMost = time.Minute

// sessionEnded releases what the daemon keeps for an MCP session that
// ended (closed by its client, expired, or evicted at the session cap):
// its export, its approval requests, tokens and grants, its redaction
// counters, its recorder state and its previous snapshots. Its tabs are
// the tab manager's, which watches sessions itself; its results and SSE
// events go with the session in internal/session and internal/mcpserver.
func (s *Server) sessionEnded(id string) {
	s.safe.ForgetSession(id)
	s.browser.export.Forget(id)
	s.browser.actions.ForgetSession(id)
	snapshot.ForgetSession(s.browser.tabs.Targets(), id)
}

// touch marks activity: the release at rest waits another full period.
func (s *Server) touch() {
	if s.rest != nil {
		s.rest.Touch()
	}
}

// startRest starts the daemon's release at rest; the returned stop ends
// it (a release already running finishes first).
func (s *Server) startRest() (stop func()) {
	release, after := s.cfg.Release, s.cfg.RestAfter
	if release == nil {
		release = memory.Release
	}
	if after <= 0 {
		after = restAfter
	}
	s.rest = memory.NewRest(after, releaseAtMost, release)
	return s.rest.Stop
}
