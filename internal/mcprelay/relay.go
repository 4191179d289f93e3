package mcprelay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/mcpline"
)

// relay is the state of one stdio relay (gasoline-mcp, --mcp). All of it belongs to the run
// goroutine: stdin lines, daemon messages and connection loss arrive as
// channel events, so nothing here is locked.
type relay struct {
	cfg Config
	log *slog.Logger
	out io.Writer

	session resume   // our session in the daemon: its id and resume key
	ids     *idTable // requests in flight, under the relay's ids (ids.go)

	initReq     []byte // the client's initialize request, replayed on reconnect
	initialized []byte // its notifications/initialized
	notice      []byte // to send once the client has initialized
	lastErr     error  // why the last connect failed
	outErr      error  // stdout failed: the client is gone
	connects    int    // connections made so far

	// The client's messages wait in held while the first connection is
	// dialled and while the daemon has not answered an initialize the
	// relay answered from the cache (initialize.go): they reach the
	// daemon in order, after its answer, as they did before the cache.
	held    []line
	dialed  bool              // the first connection was started (dialFirst)
	dialing <-chan dialResult // the first connection, until it is made or fails
	init    initState         // initialize.go
}

func newRelay(cfg Config) *relay {
	r := &relay{cfg: cfg, log: cfg.Logger, out: cfg.Out, session: parseResume(cfg.Session), ids: newIDTable()}
	r.init.first = true
	if cfg.InitCache != "" {
		r.init.cache = &initCache{path: cfg.InitCache, version: cfg.Version}
	}
	return r
}

// run answers the client's first line from the cache when it can, and
// dials the daemon once the client asks something of it (wantsDaemon; the
// dial's work would only slow the answer), or at once when the cache holds
// nothing of this version; everything else the client sends waits for the
// connection, as it always did.
func (r *relay) run(ctx context.Context, lines <-chan line) error {
	var l *link
	dctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		if r.dialing != nil { // ctx ended while dialling: wait for the dialler
			if d := <-r.dialing; d.l != nil {
				d.l.end()
			}
		}
		l.end() // the client is done: the session ends
	}()
	if !r.init.cache.holdsAny() || r.wantsDaemon() {
		r.dialFirst(dctx)
	}
	var eof <-chan time.Time // after stdin ends: the most the daemon's initialize answer is waited for
	for r.outErr == nil {
		l = r.release(ctx, l)
		switch {
		case lines == nil && !r.dialed && !r.wantsDaemon():
			return r.writeErr() // answered from the cache, and nothing asked of the daemon
		case lines == nil && len(r.held) == 0 && !r.waiting():
			r.drain(ctx, l)
			return r.writeErr()
		}
		select {
		case in, ok := <-lines:
			if ok {
				r.take(in)
			} else {
				lines = nil // stdin ended: drain once what is held has gone out
				t := time.NewTimer(r.cfg.DrainTimeout)
				defer t.Stop()
				eof = t.C
			}
			if r.wantsDaemon() {
				r.dialFirst(dctx)
			}
		case d := <-r.dialing:
			r.dialing = nil
			l = r.established(ctx, d)
		case msg := <-l.msgsC():
			r.fromDaemon(msg)
		case err := <-l.doneC():
			l = r.dropped(ctx, l, err)
		case <-eof:
			eof = nil
			r.init.check = 0 // stop holding for the check: what is held goes out, and drain bounds the rest
		case <-ctx.Done():
			return nil
		}
	}
	return r.writeErr()
}

// wantsDaemon reports whether the first connection must be made now: the
// client sent something the daemon has to see, or its first line was not
// answered from the cache. After a cache hit the relay dials only once the
// client asks something of the daemon (a request, or anything it cannot
// read as a notification): a client that initializes and leaves (a
// client's health probe, `claude mcp list`) costs the daemon no session,
// and an agent's first request pays no more than it would have waited for
// the daemon's answer to initialize.
func (r *relay) wantsDaemon() bool {
	if len(r.held) == 0 {
		return false
	}
	if r.init.given == nil && !r.init.first {
		return true // the first line was no cache hit
	}
	for _, in := range r.held {
		if in.ownInit {
			continue
		}
		if h, ok := peek(in.data); in.tooLong || !ok || h.ID != nil {
			return true
		}
	}
	return false
}

// waiting reports whether the client's messages must wait: the first
// connection is not made yet, or the daemon has not yet answered the
// initialize the relay answered from the cache.
func (r *relay) waiting() bool { return !r.dialed || r.dialing != nil || r.init.check != 0 }

// release hands the held messages on, in order, until one has to wait.
func (r *relay) release(ctx context.Context, l *link) *link {
	for len(r.held) > 0 && !r.waiting() && r.outErr == nil {
		in := r.held[0]
		r.held = r.held[1:]
		l = r.fromClient(ctx, l, in)
	}
	return l
}

// take receives one stdin line: the first, an initialize the cache can
// answer, is answered at once (initialize.go); every line then waits its
// turn in held.
func (r *relay) take(in line) {
	if r.init.first {
		r.init.first = false
		if fwd, ok := r.answerFromCache(in); ok {
			r.held = append(r.held, fwd)
			return
		}
	}
	r.held = append(r.held, in)
}

func (r *relay) writeErr() error {
	if r.outErr != nil {
		return fmt.Errorf("mcprelay: writing to stdout: %w", r.outErr)
	}
	return nil
}

// dialResult is a connection to the daemon, or why there is none.
type dialResult struct {
	l   *link
	err error
}

// dialFirst starts the first connection, once, on a goroutine of its own
// (it reads only the relay's configuration and the session hint, never its
// state); run receives the result on r.dialing. ctx ends it early.
func (r *relay) dialFirst(ctx context.Context) {
	if r.dialed {
		return
	}
	r.dialed = true
	out := make(chan dialResult, 1)
	hint := r.session
	go func() {
		l, err := r.reach(ctx, hint, true)
		out <- dialResult{l, err}
	}()
	r.dialing = out
}

// established takes the first connection's result.
func (r *relay) established(ctx context.Context, d dialResult) *link {
	if d.err != nil {
		r.lastErr = d.err
		r.log.Error("cannot reach the Gasoline daemon", "err", d.err)
		return nil
	}
	return r.connected(ctx, d.l, false)
}

// connect ensures a daemon and dials it again after a loss (or after the
// first connection failed), resuming our session if the daemon still has
// it, replays the client's initialize handshake and queues the notice for
// the client.
func (r *relay) connect(ctx context.Context) *link {
	l, err := r.reach(ctx, r.session, false)
	if err != nil {
		r.lastErr = err
		r.log.Error("cannot reach the Gasoline daemon", "err", err)
		return nil
	}
	return r.connected(ctx, l, true)
}

// reach dials the daemon: first the one the state names (Config.Known)
// when known is set, else (or when that fails) one Ensure returns.
func (r *relay) reach(ctx context.Context, hint resume, known bool) (*link, error) {
	if known {
		if l := r.dialKnown(ctx, hint); l != nil {
			return l, nil
		}
	}
	d, err := r.cfg.Ensure(ctx)
	if err != nil {
		return nil, err
	}
	return dial(ctx, d, hint, r.cfg.DialTimeout)
}

// dialKnown dials the daemon the state names (Config.Known), without
// asking it first; nil when there is none, it does not answer, or it is
// not of this version (the caller then runs Ensure, which recycles it).
func (r *relay) dialKnown(ctx context.Context, hint resume) *link {
	if r.cfg.Known == nil {
		return nil
	}
	d, ok := r.cfg.Known()
	if !ok {
		return nil
	}
	l, err := dial(ctx, d, hint, r.cfg.DialTimeout)
	if err != nil {
		r.log.Debug("the daemon the state names did not answer; ensuring one", "err", err)
		return nil
	}
	if l.version != r.cfg.Version {
		r.log.Debug("the daemon the state names is of another version; ensuring one", "version", l.version)
		l.end() // nothing to keep in a daemon about to be recycled
		return nil
	}
	return l
}

func (r *relay) connected(ctx context.Context, l *link, replay bool) *link {
	hint := r.session
	l.sent = r.cfg.sent
	if !l.resumed {
		r.session = resume{id: l.session, key: l.key}
	}
	r.connects++
	r.init.daemonVersion = l.version
	r.log.Info("connected to the daemon", "session", l.session, "resumed", l.resumed)
	switch {
	case replay && r.initReq != nil:
		if err := r.replay(ctx, l); err != nil {
			r.log.Error("replaying initialize failed", "err", err)
			l.close()
			return nil
		}
		if r.connects == 1 {
			break // the first connection, late: the client was answered from the cache and lost nothing
		}
		r.notice = notice("warning", noticeRestarted)
		if l.resumed {
			r.notice = notice("info", noticeResumed)
		}
		if r.initialized != nil {
			r.flushNotice()
		}
	case hint.id != "" && !l.resumed && !replay:
		r.notice = notice("warning", noticeNotResumed)
	}
	return l
}

// replay re-sends the client's initialize (under an id of the relay's,
// whose answer is swallowed, or checked against the cache when the client
// was answered from it and the daemon has not answered yet) and
// initialized notification on a new connection.
func (r *relay) replay(ctx context.Context, l *link) error {
	id := r.ids.addOwn()
	msg, err := setTopLevel(r.initReq, "id", json.RawMessage(strconv.FormatInt(id, 10)))
	if err != nil {
		return err
	}
	if err := l.send(ctx, msg); err != nil {
		return err
	}
	if r.init.given != nil {
		r.init.check = id
	}
	if r.initialized != nil {
		return l.send(ctx, r.initialized)
	}
	return nil
}

// fromClient forwards one stdin line. A request goes out under a relay id
// (ids.go); one whose id MCP does not allow is answered here.
func (r *relay) fromClient(ctx context.Context, l *link, in line) *link {
	if in.tooLong {
		r.write(errorReply(nil, errTooLong))
		return l
	}
	if !mcpline.Forwardable(in.data) { // not JSON: never on the link, where a control line could be taken for it
		r.write(errorReply(nil, errNotJSON))
		return l
	}
	if in.ownInit {
		return r.forwardCached(ctx, l, in.data)
	}
	h, ok := peek(in.data)
	if ok && h.isRequest() && !validID(h.ID) {
		r.write(errorReply(nil, errBadID(h.ID)))
		return l
	}
	if l == nil {
		if l = r.connect(ctx); l == nil {
			switch {
			case ok && h.isRequest():
				r.write(errorReply(h.ID, errUnavailable(r.lastErr)))
			case ok && h.method() == "notifications/initialized" && r.initReq != nil:
				r.initialized = bytes.Clone(in.data) // replayed with the initialize the cache answered
			}
			return nil
		}
		if r.init.check != 0 { // the replayed initialize checks the cache: wait for its answer
			r.held = append([]line{in}, r.held...)
			return l
		}
	}
	msg := in.data
	if ok {
		msg = r.outgoing(h, msg)
	}
	r.log.Debug("to daemon", "method", h.method(), "bytes", len(msg))
	if err := l.send(ctx, msg); err != nil {
		return r.dropped(ctx, l, err)
	}
	if ok && h.method() == "notifications/initialized" {
		r.flushNotice()
	}
	return l
}

// outgoing tracks a client message and returns what goes to the daemon.
func (r *relay) outgoing(h head, msg []byte) []byte {
	switch {
	case h.isRequest():
		id := r.ids.add(h.ID)
		if h.method() == "initialize" {
			r.initReq = bytes.Clone(msg)
			r.init.fill = id // its answer fills the cache
			r.init.pv = requestedVersion(msg)
		}
		out, err := setTopLevel(msg, "id", json.RawMessage(strconv.FormatInt(id, 10)))
		if err != nil {
			return msg // peek decoded it, so this cannot fail
		}
		return out
	case h.method() == "notifications/initialized":
		r.initialized = bytes.Clone(msg)
	case h.method() == "notifications/cancelled":
		return r.ids.cancelled(msg)
	}
	return msg
}

func (r *relay) flushNotice() {
	if r.notice != nil {
		r.write(r.notice)
		r.notice = nil
	}
}

// fromDaemon writes one daemon message to stdout: an answer goes back under
// the client's id, byte for byte; the answer to a request of the relay's
// own is dropped.
func (r *relay) fromDaemon(msg []byte) {
	if !gjson.GetBytes(msg, "method").Exists() {
		if id, start, end, ok := relayID(msg); ok {
			if p, ok := r.ids.answered(id); ok {
				if id == r.init.check {
					r.checked(msg)
				}
				if p.swallow {
					return
				}
				msg = splice(msg, start, end, p.client)
				if id == r.init.fill {
					defer r.filled(msg) // after the answer is on stdout
				}
			}
		}
	}
	r.write(msg)
}

// dropped handles a lost connection: every request in flight gets an
// error (never silence), then the relay reconnects.
func (r *relay) dropped(ctx context.Context, l *link, err error) *link {
	r.log.Warn("lost the connection to the daemon", "err", err, "in_flight", r.ids.clientRequests())
	l.close()
	r.failInflight(errLost)
	r.init.check, r.init.fill = 0, 0 // forgotten with the requests; a replay checks again
	return r.connect(ctx)
}

// failInflight answers every client request in flight with e, oldest
// first, and forgets the relay's own.
func (r *relay) failInflight(e rpcErr) {
	for _, id := range r.ids.drainAll() {
		r.write(errorReply(id, e))
	}
}

// drain waits briefly, after stdin ended, for the answers still in flight
// (DrainTimeout), then answers what is left with an error that says how to
// get the result: the relay exits within a second of the end of its input.
func (r *relay) drain(ctx context.Context, l *link) {
	if l == nil {
		return
	}
	t := time.NewTimer(r.cfg.DrainTimeout)
	defer t.Stop()
	for r.ids.clientRequests() > 0 && r.outErr == nil {
		select {
		case msg := <-l.msgsC():
			r.fromDaemon(msg)
		case <-l.doneC():
			r.failInflight(errLost)
		case <-t.C:
			r.failInflight(errExiting(r.session.String()))
			return
		case <-ctx.Done():
			return
		}
	}
}

// write puts one message on stdout as one line. Stdout has no other
// writer.
func (r *relay) write(msg []byte) {
	if r.outErr != nil {
		return
	}
	if bytes.ContainsAny(msg, "\r\n") {
		var b bytes.Buffer
		if json.Compact(&b, msg) == nil {
			msg = b.Bytes()
		}
	}
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	_, r.outErr = r.out.Write(buf)
}
