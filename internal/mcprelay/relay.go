package mcprelay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"time"
)

// relay is the state of one --mcp process. All of it belongs to the run
// goroutine: stdin lines, daemon messages and connection loss arrive as
// channel events, so nothing here is locked.
type relay struct {
	cfg Config
	log *slog.Logger
	out io.Writer

	session  string                     // the daemon's id for our session; sent to resume
	inflight map[string]json.RawMessage // client requests not yet answered, by id
	swallow  map[string]bool            // ids of replayed requests whose answers are ours

	initReq     []byte // the client's initialize request, replayed on reconnect
	initialized []byte // its notifications/initialized
	reinits     int
	notice      []byte // to send once the client has initialized
	lastErr     error  // why the last connect failed
	outErr      error  // stdout failed: the client is gone
}

func newRelay(cfg Config) *relay {
	return &relay{
		cfg: cfg, log: cfg.Logger, out: cfg.Out, session: cfg.Session,
		inflight: map[string]json.RawMessage{}, swallow: map[string]bool{},
	}
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

func (r *relay) connected(ctx context.Context, l *link, replay bool) *link {
	hint := r.session
	r.session = l.session
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
	case hint != "" && !l.resumed && !replay:
		r.notice = notice("warning", noticeNotResumed)
	}
	return l
}

// replay re-sends the client's initialize (with an id of our own, whose
// answer is swallowed) and initialized notification on a new connection.
func (r *relay) replay(ctx context.Context, l *link) error {
	r.reinits++
	id := "gasoline-relay-reinit-" + strconv.Itoa(r.reinits)
	msg, err := withID(r.initReq, id)
	if err != nil {
		return err
	}
	r.swallow[idKey(json.RawMessage(strconv.Quote(id)))] = true
	if err := l.send(ctx, msg); err != nil {
		return err
	}
	if r.initialized != nil {
		return l.send(ctx, r.initialized)
	}
	return nil
}

// fromClient forwards one stdin line, tracking requests.
func (r *relay) fromClient(ctx context.Context, l *link, in line) *link {
	if in.tooLong {
		r.write(errorReply(nil, errTooLong))
		return l
	}
	h, ok := peek(in.data)
	if l == nil {
		if l = r.connect(ctx, true); l == nil {
			if ok && h.isRequest() {
				r.write(errorReply(h.ID, errUnavailable(r.lastErr)))
			}
			return nil
		}
	}
	if ok {
		r.track(h, in.data)
	}
	r.log.Debug("to daemon", "method", h.method(), "id", string(h.ID), "bytes", len(in.data))
	if err := l.send(ctx, in.data); err != nil {
		return r.dropped(ctx, l, err)
	}
	if ok && h.method() == "notifications/initialized" {
		r.flushNotice()
	}
	return l
}

func (r *relay) track(h head, data []byte) {
	switch {
	case h.isRequest():
		r.inflight[idKey(h.ID)] = h.ID
		if h.method() == "initialize" {
			r.initReq = bytes.Clone(data)
		}
	case h.method() == "notifications/initialized":
		r.initialized = bytes.Clone(data)
	}
}

func (r *relay) flushNotice() {
	if r.notice != nil {
		r.write(r.notice)
		r.notice = nil
	}
}

// fromDaemon writes one daemon message to stdout, unless it answers a
// replayed request.
func (r *relay) fromDaemon(msg []byte) {
	if h, ok := peek(msg); ok && h.isResponse() {
		k := idKey(h.ID)
		if r.swallow[k] {
			delete(r.swallow, k)
			return
		}
		delete(r.inflight, k)
	}
	r.write(msg)
}

// dropped handles a lost connection: every request in flight gets an
// error (never silence), then the relay reconnects.
func (r *relay) dropped(ctx context.Context, l *link, err error) *link {
	r.log.Warn("lost the connection to the daemon", "err", err, "in_flight", len(r.inflight))
	l.close()
	r.failInflight()
	clear(r.swallow)
	return r.connect(ctx, true)
}

func (r *relay) failInflight() {
	keys := make([]string, 0, len(r.inflight))
	for k := range r.inflight {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r.write(errorReply(r.inflight[k], errLost))
		delete(r.inflight, k)
	}
}

// drain waits, after stdin ended, for the answers still in flight.
func (r *relay) drain(ctx context.Context, l *link) {
	if l == nil || len(r.inflight) == 0 {
		return
	}
	t := time.NewTimer(r.cfg.DrainTimeout)
	defer t.Stop()
	for len(r.inflight) > 0 && r.outErr == nil {
		select {
		case msg := <-l.msgsC():
			r.fromDaemon(msg)
		case <-l.doneC():
			r.failInflight()
		case <-t.C:
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
