package nativehost

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/gasoline-mcp/gasoline/internal/memory"
)

// The native host is a relay: it frames and forwards messages, holding
// next to nothing (pending request ids, a hello, redaction counts), so the
// Go runtime is sized for that in this mode only (the daemon and the MCP
// relay keep the defaults): a small heap goal, one P, no heap profiling,
// the binary's start-up pages unmapped (memory.UnmapCleanPages), and after
// each burst of traffic, at rest, the free heap and the pages relaying
// touched handed back (memory.Rest). GOGC, GOMEMLIMIT or GOMAXPROCS in the environment win.
const (
	// relayGCPercent collects when the heap has grown by a quarter of what
	// is live (and past 1 MiB): the live heap is ~0.5 MiB, so collections
	// are cheap, and garbage from relayed messages does not pile up.
	relayGCPercent = 25
	// relayMemoryLimit is a backstop on the runtime's memory (~8 MiB in
	// use at rest, most of it reserved metadata that is not resident): a
	// burst of large messages (full-page screenshots) makes the collector
	// run more often and hand memory back sooner, and the burst still goes
	// through. A tighter limit would sit below what the runtime holds
	// anyway and keep the collector running flat out (measured: 6x the
	// relay's CPU at 4 MiB).
	relayMemoryLimit = 10 << 20
)

// sizeRuntime sizes the Go runtime for relaying, and drops the mappings
// start-up left of the binary's code (memory.UnmapCleanPages).
func sizeRuntime() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(relayGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(relayMemoryLimit)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1) // a relay needs no parallelism; each P caches spans
	}
	runtime.MemProfileRate = 0 // nothing reads a relay's heap profile
	memory.UnmapCleanPages()
}
