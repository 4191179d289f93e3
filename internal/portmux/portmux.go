// Package portmux shares one listening port between the daemon's HTTP
// server and a second protocol told apart by the first byte a client
// sends (the stdio relay's line link, whose first line is a JSON object:
// '{'; every HTTP or WebSocket request begins with a method token). Each
// accepted connection's first byte is read on a goroutine of its own, so
// a client slow to send one delays nobody else.
package portmux

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// Config configures New. Match and Serve are required.
type Config struct {
	// Match reports whether a connection whose first byte is b goes to
	// Serve; every other connection is returned by Accept.
	Match func(b byte) bool
	// Serve serves a matched connection (the first byte is read again
	// from it) on the connection's goroutine, and closes it; it must
	// return once the caller's context ends.
	Serve func(net.Conn)
	// FirstByte bounds the wait for a connection's first byte; one that
	// sends nothing in that time goes to Accept as it is (an HTTP client
	// may open a connection before it has a request to send). Default 10s.
	FirstByte time.Duration
}

// Listener wraps a net.Listener: Accept returns the connections Match
// does not take. Close closes the wrapped listener; Wait waits for every
// goroutine Listener started (Serve's included) once it is closed.
type Listener struct {
	ln    net.Listener
	cfg   Config
	conns chan accepted
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup

	mu      sync.Mutex
	pending map[net.Conn]struct{} // connections whose first byte is awaited
}

type accepted struct {
	c   net.Conn
	err error
}

// New starts accepting on ln.
func New(ln net.Listener, cfg Config) *Listener {
	if cfg.FirstByte <= 0 {
		cfg.FirstByte = 10 * time.Second
	}
	l := &Listener{ln: ln, cfg: cfg, conns: make(chan accepted), done: make(chan struct{}),
		pending: map[net.Conn]struct{}{}}
	l.wg.Add(1)
	go l.run()
	return l
}

// run accepts until the listener closes. An accept error goes to Accept
// (http.Server backs off on a temporary one and calls again, or returns).
func (l *Listener) run() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if !l.hand(accepted{err: err}) || errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		l.wg.Add(1)
		go l.sniff(c)
	}
}

// sniff reads c's first byte and sends c where it belongs.
func (l *Listener) sniff(c net.Conn) {
	defer l.wg.Done()
	var b [1]byte
	if !l.track(c, true) {
		c.Close()
		return
	}
	c.SetReadDeadline(time.Now().Add(l.cfg.FirstByte))
	n, err := io.ReadFull(c, b[:])
	l.track(c, false)
	c.SetReadDeadline(time.Time{})
	switch {
	case n == 1 && l.cfg.Match(b[0]):
		l.cfg.Serve(&peeked{Conn: c, first: b[:]})
	case n == 1:
		l.handConn(&peeked{Conn: c, first: b[:]})
	case errors.Is(err, os.ErrDeadlineExceeded):
		l.handConn(c) // silent so far: HTTP's own timeouts take it from here
	default:
		c.Close() // closed before a byte
	}
}

// track adds c to the connections Close wakes, or removes it; false when
// the listener is closed already.
func (l *Listener) track(c net.Conn, add bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !add {
		delete(l.pending, c)
		return true
	}
	select {
	case <-l.done:
		return false
	default:
	}
	l.pending[c] = struct{}{}
	return true
}

func (l *Listener) handConn(c net.Conn) {
	if !l.hand(accepted{c: c}) {
		c.Close()
	}
}

// hand gives a to Accept; false once the listener is closed.
func (l *Listener) hand(a accepted) bool {
	select {
	case l.conns <- a:
		return true
	case <-l.done:
		return false
	}
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case a := <-l.conns:
		return a.c, a.err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener; it is idempotent.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		l.mu.Lock()
		close(l.done)
		for c := range l.pending {
			c.SetReadDeadline(time.Unix(1, 0)) // its sniff ends now
		}
		l.mu.Unlock()
		err = l.ln.Close()
	})
	return err
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Wait waits for every goroutine the listener started: call it after
// Close, once whatever ends Serve's connections (their context) has.
func (l *Listener) Wait() { l.wg.Wait() }

// peeked is a connection whose first byte was read already and is read
// again first.
type peeked struct {
	net.Conn
	first []byte
}

func (p *peeked) Read(b []byte) (int, error) {
	if len(p.first) > 0 {
		n := copy(b, p.first)
		p.first = p.first[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}
