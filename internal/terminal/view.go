package terminal

import (
	"context"
	"sync"
)

// view is one terminal view of the panel: its size, its output credit and
// at most one process at a time (started by the first input after none
// ran, or after the last one exited).
type view struct {
	id   string
	peer Peer
	m    *Manager

	// credit holds a token when unacked dropped below the window.
	credit chan struct{}

	mu       sync.Mutex
	cols     int
	rows     int
	unacked  int  // output bytes sent and not yet acknowledged
	cur      *run // the process, nil when none runs
	closed   bool
	inBytes  int64 // totals for the log (sizes only, never contents)
	outBytes int64
}

// input queues data for the process, starting one when none runs. Empty
// data only starts it.
func (v *view) input(data []byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return
	}
	if v.cur == nil {
		v.cur = v.startLocked()
		if v.cur == nil {
			return
		}
	}
	if len(data) > 0 && v.cur.push(data) {
		v.inBytes += int64(len(data))
	}
}

// startLocked begins a run; its supervisor starts the process off the
// caller's goroutine. v.mu is held.
func (v *view) startLocked() *run {
	m := v.m
	m.mu.Lock()
	closed := m.closed
	if !closed {
		m.wg.Add(1)
	}
	m.mu.Unlock()
	if closed {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{v: v, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1), drops: make(chan struct{}, 1), stopping: make(chan struct{}), exited: make(chan struct{}),
		cols: v.cols, rows: v.rows}
	go func() {
		defer m.wg.Done()
		r.supervise()
	}()
	return r
}

// ended is called by a run's supervisor when its process is gone.
func (v *view) ended(r *run) {
	v.mu.Lock()
	if v.cur == r {
		v.cur = nil
	}
	v.mu.Unlock()
}

func (v *view) running() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cur != nil
}

// ack returns output credit.
func (v *view) ack(n int) {
	if n <= 0 {
		return
	}
	v.mu.Lock()
	v.unacked = max(v.unacked-n, 0)
	open := v.unacked < v.m.cfg.Window
	v.mu.Unlock()
	if open {
		select {
		case v.credit <- struct{}{}:
		default:
		}
	}
}

// take waits until output may be sent and returns how many bytes, at most
// MaxChunk; 0 when ctx ended first.
func (v *view) take(ctx context.Context) int {
	for {
		v.mu.Lock()
		n := min(v.m.cfg.Window-v.unacked, MaxChunk)
		v.mu.Unlock()
		if n > 0 {
			return n
		}
		select {
		case <-v.credit:
		case <-ctx.Done():
			return 0
		}
	}
}

// spend records n bytes sent.
func (v *view) spend(n int) {
	v.mu.Lock()
	v.unacked += n
	v.outBytes += int64(n)
	v.mu.Unlock()
}

func (v *view) resize(cols, rows int) {
	v.mu.Lock()
	v.cols, v.rows = cols, rows
	r := v.cur
	v.mu.Unlock()
	if r != nil {
		r.resize(cols, rows)
	}
}

// close ends the view: its process, if any, is hung up and killed later.
func (v *view) close(why string) {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.closed = true
	r := v.cur
	in, out := v.inBytes, v.outBytes
	v.mu.Unlock()
	v.m.log.Info("terminal closed", "term", v.id, "why", why, "bytes_in", in, "bytes_out", out)
	if r != nil {
		r.stop()
	}
}

func (v *view) isClosed() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.closed
}
