package actions

import (
	"context"
	"sync"
)

// fifo is a lock granted in arrival order: callers queue, and unlock hands
// the lock to the oldest waiter. A waiter whose context ends leaves the
// queue (or, if the lock was handed to it meanwhile, passes it on).
type fifo struct {
	mu      sync.Mutex
	held    bool
	waiters []chan struct{}
}

// lock waits for the lock in arrival order, bounded by ctx.
func (f *fifo) lock(ctx context.Context) error {
	f.mu.Lock()
	if !f.held {
		f.held = true
		f.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	f.waiters = append(f.waiters, ch)
	f.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		for i, w := range f.waiters {
			if w == ch {
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

// unlock releases the lock to the oldest waiter, if any.
func (f *fifo) unlock() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.waiters) == 0 {
		f.held = false
		return
	}
	next := f.waiters[0]
	f.waiters = f.waiters[1:]
	close(next)
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
