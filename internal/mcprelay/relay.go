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

	"github.com/gasoline-mcp/gasoline/internal/version"
)

// relay is the state of one --mcp process. All of it belongs to the run
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
}

func newRelay(cfg Config) *relay {
	return &relay{cfg: cfg, log: cfg.Logger, out: cfg.Out, session: parseResume(cfg.Session), ids: newIDTable()}
}

func (r *relay) run(ctx context.Context, lines <-chan line) error {
	l := r.connect(ctx, false)
	defer func() { l.end() }() // the client is done: the session ends
	for r.outErr == nil {
		select {
		case in, ok := <-lines:
			if !ok {
				r.drain(ctx, l)
				return r.writeErr()
			}
			l = r.fromClient(ctx, l, in)
		case msg := <-l.msgsC():
			r.fromDaemon(msg)
		case err := <-l.doneC():
			l = r.dropped(ctx, l, err)
		case <-ctx.Done():
			return nil
		}
	}
	return r.writeErr()
}

func (r *relay) writeErr() error {
	if r.outErr != nil {
		return fmt.Errorf("mcprelay: writing to stdout: %w", r.outErr)
	}
	return nil
}

// connect ensures a daemon and dials it, resuming our session if the
// daemon still has it. After a loss (replay), it replays the client's
// initialize handshake and queues the notice for the client.
func (r *relay) connect(ctx context.Context, replay bool) *link {
	if !replay {
		if l := r.dialKnown(ctx); l != nil {
			return r.connected(ctx, l, replay)
		}
	}
	d, err := r.cfg.Ensure(ctx)
	if err == nil {
		var l *link
		if l, err = dial(ctx, d, r.session, r.cfg.DialTimeout); err == nil {
			return r.connected(ctx, l, replay)
		}
	}
	r.lastErr = err
	r.log.Error("cannot reach the Gasoline daemon", "err", err)
	return nil
}

// dialKnown dials the daemon the state names (Config.Known), without
// asking it first; nil when there is none, it does not answer, or it is
// not of this version (the caller then runs Ensure, which recycles it).
func (r *relay) dialKnown(ctx context.Context) *link {
	if r.cfg.Known == nil {
		return nil
	}
	d, ok := r.cfg.Known()
	if !ok {
		return nil
	}
	l, err := dial(ctx, d, r.session, r.cfg.DialTimeout)
	if err != nil {
		r.log.Debug("the daemon the state names did not answer; ensuring one", "err", err)
		return nil
	}
	if l.version != version.Version {
		r.log.Debug("the daemon the state names is of another version; ensuring one", "version", l.version)
		l.end() // nothing to keep in a daemon about to be recycled
		return nil
	}
	return l
}

func (r *relay) connected(ctx context.Context, l *link, replay bool) *link {
	hint := r.session
	if !l.resumed {
		r.session = resume{id: l.session, key: l.key}
	}
	r.log.Info("connected to the daemon", "session", l.session, "resumed", l.resumed)
	switch {
	case replay && r.initReq != nil:
		if err := r.replay(ctx, l); err != nil {
			r.log.Error("replaying initialize failed", "err", err)
			l.close()
			return nil
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
// whose answer is swallowed) and initialized notification on a new
// connection.
func (r *relay) replay(ctx context.Context, l *link) error {
	msg, err := setTopLevel(r.initReq, "id", json.RawMessage(strconv.FormatInt(r.ids.addOwn(), 10)))
	if err != nil {
		return err
	}
	if err := l.send(ctx, msg); err != nil {
		return err
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
	h, ok := peek(in.data)
	if ok && h.isRequest() && !validID(h.ID) {
		r.write(errorReply(nil, errBadID(h.ID)))
		return l
	}
	if l == nil {
		if l = r.connect(ctx, true); l == nil {
			if ok && h.isRequest() {
				r.write(errorReply(h.ID, errUnavailable(r.lastErr)))
			}
			return nil
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
		if h.method() == "initialize" {
			r.initReq = bytes.Clone(msg)
		}
		out, err := setTopLevel(msg, "id", json.RawMessage(strconv.FormatInt(r.ids.add(h.ID), 10)))
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
				if p.swallow {
					return
				}
				msg = splice(msg, start, end, p.client)
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
	return r.connect(ctx, true)
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
