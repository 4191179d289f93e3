package terminal

import (
	"context"
	"sync"
	"time"
)

// drainWait bounds how long output still flows after the process exited:
// a descendant that keeps the PTY open, or a panel that stopped
// acknowledging, does not keep the view's process slot.
const drainWait = 2 * time.Second

// exitTimeout bounds the write of term.exit to the link.
const exitTimeout = 5 * time.Second

// run is one process of a view: its supervisor starts it and reaps it; a
// reader sends its output (within the view's credit), a writer feeds it
// the queued input, and a guard hangs it up (then kills it) when the view
// closes. All four stop with the process; the Manager waits for them.
type run struct {
	v      *view
	ctx    context.Context // ends when the process is gone or the view closed
	cancel context.CancelFunc

	mu      sync.Mutex
	cols    int
	rows    int
	proc    Proc
	queue   [][]byte
	queued  int           // bytes in queue
	dropped int           // input bytes dropped since the last term.dropped
	wake    chan struct{} // a token: input queued
	drops   chan struct{} // a token: input dropped

	stopOnce sync.Once
	stopping chan struct{} // closed: the view closed
	exited   chan struct{} // closed: the process was reaped
}

// push queues input; false when the queue is full (the input is dropped
// and the guard reports it: the writer may be stuck in a write).
func (r *run) push(data []byte) bool {
	r.mu.Lock()
	ok := r.queued+len(data) <= MaxQueuedInput
	if ok {
		r.queue = append(r.queue, data)
		r.queued += len(data)
	} else {
		r.dropped += len(data)
	}
	r.mu.Unlock()
	token := r.wake
	if !ok {
		token = r.drops
	}
	select {
	case token <- struct{}{}:
	default:
	}
	return ok
}

// pop takes the next queued input (nil when none).
func (r *run) pop() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queue) == 0 {
		return nil
	}
	chunk := r.queue[0]
	r.queue[0] = nil
	r.queue = r.queue[1:]
	r.queued -= len(chunk)
	return chunk
}

// takeDropped is the count of input bytes dropped since the last call.
func (r *run) takeDropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.dropped
	r.dropped = 0
	return n
}

func (r *run) resize(cols, rows int) {
	r.mu.Lock()
	r.cols, r.rows = cols, rows
	p := r.proc
	r.mu.Unlock()
	if p != nil {
		p.Resize(cols, rows)
	}
}

// stop is the view closing: the guard hangs the process up.
func (r *run) stop() { r.stopOnce.Do(func() { close(r.stopping) }) }

func (r *run) stopped() bool {
	select {
	case <-r.stopping:
		return true
	default:
		return false
	}
}

// supervise starts the process, waits for it and reports its end.
func (r *run) supervise() {
	v, m := r.v, r.v.m
	defer r.cancel()
	p, err := r.start()
	if err != nil {
		m.log.Warn("terminal: could not start the command", "term", v.id, "err", err)
		v.ended(r)
		r.exit(map[string]any{"term_id": v.id, "error": err.Error()})
		return
	}
	if p == nil { // the view closed before the process started
		v.ended(r)
		return
	}
	m.log.Info("terminal started", "term", v.id, "pid", p.Pid())
	outDone := make(chan struct{})
	var pumps sync.WaitGroup
	pumps.Add(3)
	go func() { defer pumps.Done(); defer close(outDone); r.readOutput(p) }()
	go func() { defer pumps.Done(); r.writeInput(p) }()
	go func() { defer pumps.Done(); r.guard(p) }()

	st := p.Wait()
	close(r.exited)
	// What the process wrote before it exited still goes out (the panel
	// acknowledges as it shows it), bounded.
	drain := time.NewTimer(drainWait)
	select {
	case <-outDone:
	case <-r.stopping:
	case <-drain.C:
	}
	drain.Stop()
	r.cancel()
	p.Close()
	pumps.Wait()
	m.log.Info("terminal process ended", "term", v.id, "pid", p.Pid(), "code", st.Code, "signal", st.Signal)
	// The view has no process before the panel hears of the exit: the key
	// it answers with starts a new one.
	v.ended(r)
	r.exit(map[string]any{"term_id": v.id, "code": st.Code, "signal": st.Signal})
}

// start resolves the settings and starts the process at the view's size.
// (nil, nil): the view closed first, nothing started.
func (r *run) start() (Proc, error) {
	m := r.v.m
	s, err := LoadSettings(m.cfg.Dir)
	if err != nil {
		return nil, err
	}
	argv, dir := m.resolve(s)
	r.mu.Lock()
	spec := Spec{Argv: argv, Dir: dir, Env: termEnv(m.cfg.Env), Cols: r.cols, Rows: r.rows}
	r.mu.Unlock()
	if r.stopped() {
		return nil, nil
	}
	p, err := m.cfg.Start(spec)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.proc = p
	cols, rows := r.cols, r.rows
	r.mu.Unlock()
	if cols != spec.Cols || rows != spec.Rows { // resized while starting
		p.Resize(cols, rows)
	}
	return p, nil
}

// exit tells the panel the process is gone, unless the view closed.
func (r *run) exit(params map[string]any) {
	if r.v.isClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
	defer cancel()
	if err := r.v.peer.Notify(ctx, EventExit, params); err != nil {
		r.v.m.log.Debug("terminal: term.exit not delivered", "term", r.v.id, "err", err)
	}
}

// readOutput sends the process's output to the panel, never more than the
// view's credit allows, in pieces of at most MaxChunk bytes.
func (r *run) readOutput(p Proc) {
	buf := make([]byte, MaxChunk)
	for {
		n := r.v.take(r.ctx)
		if n == 0 {
			return
		}
		k, err := p.Read(buf[:n])
		if k > 0 {
			r.v.spend(k)
			// []byte travels as base64.
			msg := map[string]any{"term_id": r.v.id, "data": buf[:k]}
			if nerr := r.v.peer.Notify(r.ctx, EventOutput, msg); nerr != nil {
				return // the link is going; the view is dropped with it
			}
		}
		if err != nil {
			return
		}
	}
}

// writeInput feeds the queued input to the process.
func (r *run) writeInput(p Proc) {
	for {
		select {
		case <-r.wake:
		case <-r.ctx.Done():
			return
		}
		for chunk := r.pop(); chunk != nil; chunk = r.pop() {
			if _, err := p.Write(chunk); err != nil {
				return
			}
		}
	}
}

// guard tells the panel about dropped input while the process runs; when
// the view closes, it hangs the process up, and kills it when it is still
// there KillAfter later.
func (r *run) guard(p Proc) {
	for watching := true; watching; {
		select {
		case <-r.exited:
			return
		case <-r.drops:
			if n := r.takeDropped(); n > 0 {
				r.v.m.log.Warn("terminal: input dropped, the program is not reading it", "term", r.v.id, "bytes", n)
				r.v.peer.Notify(r.ctx, EventDropped, map[string]any{"term_id": r.v.id, "bytes": n})
			}
		case <-r.stopping:
			watching = false
		}
	}
	r.cancel()
	p.Signal(Hangup)
	p.Close() // the kernel hangs up the PTY's session too
	t := time.NewTimer(r.v.m.cfg.KillAfter)
	defer t.Stop()
	select {
	case <-r.exited:
	case <-t.C:
		r.v.m.log.Warn("terminal: the process outlived its hang-up; killing it", "term", r.v.id, "pid", p.Pid())
		p.Signal(Kill)
	}
}
