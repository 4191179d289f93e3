package memory

import (
	"runtime/debug"
	"time"
)

// Rest runs a release once after every burst of activity: Touch marks
// activity, and the release runs when its period passes with none. A
// process of Gasoline sits idle most of its life (between an agent's
// calls, or with no agent at all), and what a burst pulled in — heap pages
// from a screenshot's frames, pages of the binary's code and tables that
// serving touched — need not stay with it while it waits. The native host
// rests after 2 s without a message; the daemon after a few seconds
// without a call or a message from a browser.
type Rest struct {
	after   time.Duration
	t       *time.Timer
	busy    chan struct{} // full while release runs, and for good once stopped
	release func()
}

// NewRest starts the clock: release runs after d unless touched.
func NewRest(d time.Duration, release func()) *Rest {
	r := &Rest{after: d, busy: make(chan struct{}, 1), release: release}
	r.t = time.AfterFunc(d, r.fire)
	return r
}

// Touch marks activity: release waits another full period.
func (r *Rest) Touch() { r.t.Reset(r.after) }

func (r *Rest) fire() {
	select {
	case r.busy <- struct{}{}:
	default:
		return // stopped
	}
	r.release()
	<-r.busy
}

// Stop ends the clock; a release already running finishes first.
func (r *Rest) Stop() {
	r.t.Stop()
	r.busy <- struct{}{} // held from now on: a late fire releases nothing
}

// Release is the release at rest: a collection that returns the heap's
// free pages to the system, then the binary's clean pages unmapped
// (UnmapCleanPages: what start-up and the burst touched; a page the next
// burst needs comes back from the page cache without I/O).
func Release() {
	debug.FreeOSMemory()
	UnmapCleanPages()
}
