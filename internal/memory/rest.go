package memory

import (
	"runtime/debug"
	"sync/atomic"
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
//
// A process that is never idle (agents polling for hours) would never
// rest, and what its bursts leave behind would stay with it: given a
// most, a release also runs once that long has passed since the last one
// while traffic goes on, so resident memory follows the live heap under
// load too.
type Rest struct {
	after   time.Duration
	most    time.Duration // 0: only at rest
	last    atomic.Int64  // when the last release started, UnixNano
	t       *time.Timer
	busy    chan struct{} // full while release runs, and for good once stopped
	release func()
}

// NewRest starts the clock: release runs after d unless touched, and,
// when most > 0, at least once every most while touches go on.
func NewRest(d, most time.Duration, release func()) *Rest {
	r := &Rest{after: d, most: most, busy: make(chan struct{}, 1), release: release}
	r.last.Store(time.Now().UnixNano())
	r.t = time.AfterFunc(d, r.fire)
	return r
}

// Touch marks activity: release waits another full period, unless the
// last release is most ago, when one starts now (on its own goroutine:
// a touch never waits for it; Stop does).
func (r *Rest) Touch() {
	if r.most > 0 {
		last, now := r.last.Load(), time.Now().UnixNano()
		if time.Duration(now-last) >= r.most && r.last.CompareAndSwap(last, now) {
			go r.fire()
		}
	}
	r.t.Reset(r.after)
}

func (r *Rest) fire() {
	select {
	case r.busy <- struct{}{}:
	default:
		return // stopped, or a release is running
	}
	r.last.Store(time.Now().UnixNano())
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
