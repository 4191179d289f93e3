package actions

import (
	"context"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/waitnote"
)

// fifo is a lock granted in arrival order: callers queue, and unlock hands
// the lock to the oldest waiter. A waiter whose context ends leaves the
// queue (or, if the lock was handed to it meanwhile, passes it on). A
// caller that has to wait says so in its context's wait note (waitnote),
// naming what it waits for and the call that holds the lock.
type fifo struct {
	name string // what the lock guards, for wait notes: "tab 3"

	mu      sync.Mutex
	held    bool
	holder  string // the holding call's correlation id ("" when unknown)
	waiters []waiter
}

type waiter struct {
	ch chan struct{}
	id string // its correlation id, the holder once it is handed the lock
}

// lock waits for the lock in arrival order, bounded by ctx.
func (f *fifo) lock(ctx context.Context) error {
	id := waitnote.ID(ctx)
	f.mu.Lock()
	if !f.held {
		f.held, f.holder = true, id
		f.mu.Unlock()
		return nil
	}
	w := waiter{ch: make(chan struct{}), id: id}
	f.waiters = append(f.waiters, w)
	reason := f.waitReason()
	f.mu.Unlock()
	defer waitnote.Begin(ctx, reason)() // the note's setter runs outside f.mu
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		for i, x := range f.waiters {
			if x.ch == w.ch {
				f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
				f.mu.Unlock()
				return ctx.Err()
			}
		}
		f.mu.Unlock()
		f.unlock() // handed over as ctx ended: pass it on
		return ctx.Err()
	}
}

// waitReason names what a new waiter waits for; f.mu is held.
func (f *fifo) waitReason() string {
	name := f.name
	if name == "" {
		name = "the tab"
	}
	if f.holder == "" {
		return name + ": another call acts on it"
	}
	return name + ": call " + f.holder + " acts on it"
}

// unlock releases the lock to the oldest waiter, if any.
func (f *fifo) unlock() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.waiters) == 0 {
		f.held, f.holder = false, ""
		return
	}
	next := f.waiters[0]
	f.waiters = f.waiters[1:]
	f.holder = next.id
	close(next.ch)
}

// queued is how many callers hold or wait for the lock.
func (f *fifo) queued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.waiters)
	if f.held {
		n++
	}
	return n
}
