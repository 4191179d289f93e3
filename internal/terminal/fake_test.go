package terminal

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"sync"
	"testing"
)

// fakeProc is a program on a fake PTY, driven by the test: what it
// "prints" goes through say, what it reads arrives on typed, and it ends
// with end, or on a signal (unless it ignores the hang-up).
type fakeProc struct {
	spec         Spec
	ignoreHangup bool

	out     chan []byte // what the program prints, read by the daemon
	rest    []byte      // printed and not read yet
	typed   chan []byte // what the daemon wrote to it
	reading bool        // false: Write blocks, as a program that reads nothing

	mu      sync.Mutex
	signals []Signal
	sizes   [][2]int
	status  chan ExitStatus
	ended   chan struct{} // closed with the first status
	endOnce sync.Once
	closed  chan struct{}
	cOnce   sync.Once
}

func newFakeProc(spec Spec) *fakeProc {
	return &fakeProc{spec: spec, out: make(chan []byte, 64), typed: make(chan []byte, 64), reading: true,
		status: make(chan ExitStatus, 1), ended: make(chan struct{}), closed: make(chan struct{})}
}

func (p *fakeProc) say(s string) { p.out <- []byte(s) }

func (p *fakeProc) end(st ExitStatus) {
	p.endOnce.Do(func() { p.status <- st; close(p.ended) })
}

// Read returns what the program printed; at its end, once that is read,
// EOF (a real PTY answers EIO); Close interrupts it.
func (p *fakeProc) Read(b []byte) (int, error) {
	if len(p.rest) == 0 {
		select {
		case p.rest = <-p.out:
		default:
			select {
			case p.rest = <-p.out:
			case <-p.ended:
				return 0, io.EOF
			case <-p.closed:
				return 0, os.ErrClosed
			}
		}
	}
	n := copy(b, p.rest)
	p.rest = p.rest[n:]
	return n, nil
}

func (p *fakeProc) Write(b []byte) (int, error) {
	if !p.reading {
		<-p.closed
		return 0, os.ErrClosed
	}
	select {
	case p.typed <- append([]byte(nil), b...):
		return len(b), nil
	case <-p.closed:
		return 0, os.ErrClosed
	}
}

func (p *fakeProc) Resize(cols, rows int) error {
	p.mu.Lock()
	p.sizes = append(p.sizes, [2]int{cols, rows})
	p.mu.Unlock()
	return nil
}

func (p *fakeProc) Signal(s Signal) error {
	p.mu.Lock()
	p.signals = append(p.signals, s)
	p.mu.Unlock()
	switch {
	case s == Kill:
		p.end(ExitStatus{Code: -1, Signal: "SIGKILL"})
	case !p.ignoreHangup:
		p.end(ExitStatus{Code: -1, Signal: "SIGHUP"})
	}
	return nil
}

func (p *fakeProc) Wait() ExitStatus { return <-p.status }

func (p *fakeProc) Close() error {
	p.cOnce.Do(func() { close(p.closed) })
	return nil
}

func (p *fakeProc) Pid() int { return 4242 }

func (p *fakeProc) gotSignals() []Signal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Signal(nil), p.signals...)
}

// starter hands out fake processes and records them.
type starter struct {
	mu     sync.Mutex
	procs  []*fakeProc
	made   chan *fakeProc
	fail   error
	config func(*fakeProc)
}

func newStarter() *starter { return &starter{made: make(chan *fakeProc, 16)} }

func (s *starter) start(spec Spec) (Proc, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	p := newFakeProc(spec)
	if s.config != nil {
		s.config(p)
	}
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	s.made <- p
	return p, nil
}

func (s *starter) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.procs)
}

// msg is one message the daemon sent a peer, decoded.
type msg struct {
	Method string
	TermID string `json:"term_id"`
	Data   []byte `json:"data"` // base64 on the wire
	Code   *int   `json:"code"`
	Signal string `json:"signal"`
	Error  string `json:"error"`
	Bytes  int    `json:"bytes"`
}

// peer is a link: it records what the daemon sends it.
type peer struct {
	got chan msg
}

func newPeer() *peer { return &peer{got: make(chan msg, 1024)} }

func (p *peer) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var m msg
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	m.Method = method
	p.got <- m
	return nil
}

// next is the next message, failing the test when there is none yet.
func (p *peer) next(t *testing.T) msg {
	t.Helper()
	select {
	case m := <-p.got:
		return m
	default:
		t.Fatal("the daemon sent nothing")
		return msg{}
	}
}

// none fails the test when the daemon sent something.
func (p *peer) none(t *testing.T) {
	t.Helper()
	select {
	case m := <-p.got:
		t.Fatalf("unexpected %s: %+v", m.Method, m)
	default:
	}
}

func event(t *testing.T, m *Manager, p Peer, method string, params map[string]any) {
	t.Helper()
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	m.Event(p, method, raw)
}

// openView opens a view on p and returns its id.
func openView(t *testing.T, m *Manager, p Peer, cols, rows int) string {
	t.Helper()
	raw, _ := json.Marshal(map[string]int{"cols": cols, "rows": rows})
	res, perr := m.Serve(t.Context(), p, MethodOpen, raw)
	if perr != nil {
		t.Fatalf("term.open: %v", perr)
	}
	return res.(map[string]any)["term_id"].(string)
}
