package bridge

import (
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/pprof"

	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/terminal"
)

// Memory is the daemon's memory report: the Go runtime's view (live heap,
// what is free and what was handed back, goroutines) and what every store
// that grows with use holds against its bound. configure health carries
// it; GET /debug/memory serves it to the approver.
func (s *Server) Memory() memory.Report {
	return memory.Report{Runtime: memory.ReadRuntime(), Stores: s.stores()}
}

// stores lists the size of every store of the daemon: what it keeps per
// tab is bounded by the tabs sessions hold (a tab that leaves its session
// takes its state with it), what it keeps per session by the sessions it
// keeps (a session that ends takes its state with it, release.go), and
// the rest by caps of their own. TestEveryStoreHasACapTest names the test
// that fills each past its cap.
func (s *Server) stores() []memory.Store {
	if s.browser == nil || s.mcp == nil {
		return nil
	}
	b, held := s.browser, s.browser.tabs.Registry().Held()
	sessions := s.mcp.SessionManager().MaxSessions()
	out := s.mcp.Sizes()
	out = append(out, b.store.Sizes()...)
	out = append(out, b.tabs.Sizes(sessions)...)
	out = append(out, b.act.Sizes(held)...)
	out = append(out, b.obs.Sizes(held)...)
	out = append(out, b.feed.Sizes(held)...)
	out = append(out, s.router.Sizes(held)...)
	out = append(out, s.links.Sizes()...)
	out = append(out, s.safe.Sizes(sessions)...)
	if b.actions != nil {
		out = append(out, b.actions.Sizes(held)...)
	}
	if a := &s.agentSide; a.gen != nil {
		out = append(out, a.gen.Recorder().Sizes()...)
		out = append(out, a.watch.Watcher().Sizes()...)
		out = append(out, a.panel.Sizes()...)
	}
	return append(out, memory.Store{Name: "terminal.views", Len: s.terms.Views(), Cap: terminal.DefaultMaxViews})
}

// handleMemory serves the memory report (approver credential: the agent
// reads the same report in configure health).
func (s *Server) handleMemory(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(s.Memory())
}

// handleHeapProfile serves a heap profile (pprof's format) for `go tool
// pprof`: where live memory was allocated, sampled by the runtime. It
// holds stacks and sizes, never contents. ?gc=1 collects first, so the
// profile is of what is live now. Approver credential only.
func (s *Server) handleHeapProfile(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("gc") == "1" {
		runtime.GC()
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="heap.pb.gz"`)
	w.Header().Set("Cache-Control", "no-store")
	if err := pprof.Lookup("heap").WriteTo(w, 0); err != nil {
		s.log.Warn("heap profile", "err", err)
	}
}
