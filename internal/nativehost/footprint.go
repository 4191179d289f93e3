package nativehost

import (
	"os"
	"runtime"
	"runtime/debug"
)

// The native host is a relay: it frames and forwards messages, holding
// next to nothing (pending request ids, a hello, redaction counts), so the
// Go runtime is sized for that in this mode only (the daemon and the MCP
// relay keep the defaults): a small heap goal, one P, no heap profiling,
// and the binary's start-up pages unmapped (trimStartup). GOGC,
// GOMEMLIMIT or GOMAXPROCS in the environment win.
const (
	// relayGCPercent collects when the heap has grown by half of what is
	// live (and past 2 MiB): the live heap is small, so collections are
	// cheap, and garbage from relayed messages does not pile up.
	relayGCPercent = 50
	// relayMemoryLimit is a soft limit on the runtime's memory: past it the
	// collector runs more often and returns freed memory to the system
	// sooner. A message larger than this (a full-page screenshot) still
	// goes through.
	relayMemoryLimit = 6 << 20
)

// sizeRuntime sizes the Go runtime for relaying, and drops the mappings
// start-up left of the binary's code (trimStartup).
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
	trimStartup()
}
