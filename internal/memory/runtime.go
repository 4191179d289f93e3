package memory

import (
	"runtime/metrics"
)

// Runtime is the Go runtime's own view of a process's memory, read from
// runtime/metrics (no stop of the world, unlike runtime.ReadMemStats).
type Runtime struct {
	// HeapLive is the heap the last collection found reachable: what the
	// process holds, independent of when the collector last ran.
	HeapLive uint64 `json:"heap_live_bytes"`
	// HeapObjects is the heap occupied by objects now, live or not yet
	// collected.
	HeapObjects uint64 `json:"heap_objects_bytes"`
	// HeapFree is heap memory free and still held (resident or not yet
	// handed back); HeapReleased is free heap memory handed back to the
	// system.
	HeapFree     uint64 `json:"heap_free_bytes"`
	HeapReleased uint64 `json:"heap_released_bytes"`
	// Mapped is all the memory the runtime has mapped, minus what it
	// released: an upper bound of its share of the resident set.
	Mapped     uint64 `json:"mapped_bytes"`
	Goroutines uint64 `json:"goroutines"`
	GCs        uint64 `json:"gc_cycles"`
}

var runtimeSamples = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/total:bytes",
	"/sched/goroutines:goroutines",
	"/gc/cycles/total:gc-cycles",
}

// ReadRuntime reads the runtime's memory figures now.
func ReadRuntime() Runtime {
	s := make([]metrics.Sample, len(runtimeSamples))
	for i, name := range runtimeSamples {
		s[i].Name = name
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return Runtime{HeapLive: v[0], HeapObjects: v[1], HeapFree: v[2], HeapReleased: v[3],
		Mapped: v[4] - v[3], Goroutines: v[5], GCs: v[6]}
}
