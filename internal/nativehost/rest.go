package nativehost

import (
	"runtime/debug"
	"time"
)

// restAfter is how long the relay must see no message, either way, before
// it hands back what the last burst left behind (release).
const restAfter = 2 * time.Second

// rest runs release once after every burst of traffic: touch marks
// activity, and release runs when restAfter passes with none. A relay sits
// idle most of its life (between an agent's calls, or with no agent at
// all), and what a burst pulled in — heap pages from a screenshot's
// frames, pages of the binary's code and tables that relaying touched —
// need not stay with it while it waits.
type rest struct {
	after   time.Duration
	t       *time.Timer
	busy    chan struct{} // full while release runs, and for good once stopped
	release func()
}

// newRest starts the clock: release runs after d unless touched.
func newRest(d time.Duration, release func()) *rest {
	r := &rest{after: d, busy: make(chan struct{}, 1), release: release}
	r.t = time.AfterFunc(d, r.fire)
	return r
}

// touch marks activity: release waits another full period.
func (r *rest) touch() { r.t.Reset(r.after) }

func (r *rest) fire() {
	select {
	case r.busy <- struct{}{}:
	default:
		return // stopped
	}
	r.release()
	<-r.busy
}

// stop ends the clock; a release already running finishes first.
func (r *rest) stop() {
	r.t.Stop()
	r.busy <- struct{}{} // held from now on: a late fire releases nothing
}

// releaseMemory is the relay's release at rest: a collection that returns
// the heap's free pages to the system, then the binary's clean pages
// unmapped (unmapCleanPages: what start-up and the burst touched; a page
// the next burst needs comes back from the page cache without I/O).
func releaseMemory() {
	debug.FreeOSMemory()
	unmapCleanPages()
}
