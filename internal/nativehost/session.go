package nativehost

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/wsutil"
)

// session relays over one daemon connection until it fails (done=false:
// reconnect) or input ends / stdout breaks (done=true).
func (r *relay) session(ctx context.Context, c *websocket.Conn) (done bool, err error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer r.src.reset()

	r.mu.Lock()
	hello := r.hello
	r.mu.Unlock()

	// A hello the extension sent before (to a daemon now gone, or while
	// none was reachable) is replayed, and the extension told.
	var welcome protocol.Welcome
	if hello != nil {
		w, err := r.replayHello(sctx, c, hello)
		if err != nil {
			r.log.Warn("replaying hello to the daemon", "err", err)
			return false, nil
		}
		welcome = w
		r.event(protocol.EventLinkReconnected, map[string]any{"daemon_version": w.Version, "daemon_pid": w.DaemonPID})
	}
	r.log.Info("connected to daemon", "replayed_hello", hello != nil)
	memory.UnmapCleanPages() // connecting is done: its code need not stay mapped

	if r.startReq != 0 { // the extension's daemon.start: done
		r.replyStarted(r.startReq, welcome, true)
		r.startReq = 0
	}

	// Daemon → Chrome, owned by this session.
	downErr := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		downErr <- r.down(sctx, c)
	}()
	// The source stage's counts → daemon, owned by this session too.
	go func() {
		defer wg.Done()
		r.src.report(sctx, func(ctx context.Context, msg []byte) error {
			return c.Write(ctx, websocket.MessageText, msg)
		}, func() <-chan time.Time { return time.After(r.cfg.CountsEvery) })
	}()
	defer wg.Wait()
	defer cancel()

	for {
		select {
		case msg, ok := <-r.in:
			if !ok {
				c.CloseNow()
				return true, nil
			}
			if m := peek(msg); m.Method == protocol.MethodDaemonStart && m.isRequest() {
				r.replyStarted(m.ID, protocol.Welcome{}, false) // already running
				continue
			}
			if err := r.up(sctx, c, msg); err != nil {
				r.failPending()
				return false, nil
			}
		case err := <-downErr:
			var ws writeStdoutError
			if errors.As(err, &ws) {
				return true, ws.err
			}
			r.log.Warn("daemon connection lost; reconnecting", "err", err)
			r.failPending()
			return false, nil
		case <-ctx.Done():
			return true, nil
		}
	}
}

// up forwards one message from Chrome to the daemon, tracking requests so
// they can be failed if the daemon goes away.
func (r *relay) up(ctx context.Context, c *websocket.Conn, msg []byte) error {
	m := peek(msg)
	if msg = r.src.up(msg, m); msg == nil {
		return nil // page data the redaction engine refused: dropped
	}
	if m.isRequest() {
		if m.Method == protocol.MethodHello {
			r.setHello(msg)
		}
		r.mu.Lock()
		r.pending[m.ID] = m.Method
		r.mu.Unlock()
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, msg)
}

type writeStdoutError struct{ err error }

func (e writeStdoutError) Error() string { return "writing to Chrome: " + e.err.Error() }

// down forwards the daemon's messages to Chrome until the connection
// fails, through an outbox whose writer it owns: the terminal's stream
// yields to everything else (outbox.go). What was read before the
// connection failed is still written.
func (r *relay) down(ctx context.Context, c *websocket.Conn) error {
	out := newOutbox()
	werr := make(chan error, 1)
	go func() { werr <- out.run(ctx, r.out) }()
	for {
		msg, big, err := readDaemon(ctx, c)
		r.rest.Touch()
		if big != nil && err == nil {
			r.refuse(ctx, c, big) // oversize.go
			continue
		}
		if err != nil {
			out.close()
			if werr := <-werr; werr != nil {
				return writeStdoutError{werr}
			}
			return err
		}
		h := peek(msg)
		if h.isReply() {
			r.mu.Lock()
			delete(r.pending, h.ID)
			r.mu.Unlock()
		}
		if r.src.sequenceOfPageData(msg, h) {
			e := protocol.Errorf(protocol.CodeBadRequest, false, "cdp.sequence may not run page-data commands (their results are redacted only through cdp.send); send them with cdp.send")
			out, _ := protocol.Reply(h.ID, nil, e)
			if err := wsutil.Write(ctx, c, out, 10*time.Second); err != nil {
				return err
			}
			continue
		}
		r.src.down(msg, h)
		select {
		case out.queue(h) <- msg:
		case err := <-werr:
			if err == nil { // ctx ended
				return ctx.Err()
			}
			return writeStdoutError{err}
		case <-ctx.Done():
			out.close()
			<-werr
			return ctx.Err()
		}
	}
}

// replayHello re-announces the extension to a new daemon and consumes the
// reply, so the daemon is ready before any relayed request.
func (r *relay) replayHello(ctx context.Context, c *websocket.Conn, hello []byte) (protocol.Welcome, error) {
	var w protocol.Welcome
	var m protocol.Message
	if err := json.Unmarshal(hello, &m); err != nil {
		return w, err
	}
	m.ID = helloReplayID
	out, _ := json.Marshal(m)
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Write(hctx, websocket.MessageText, out); err != nil {
		return w, err
	}
	_, msg, err := c.Read(hctx)
	if err != nil {
		return w, err
	}
	var reply protocol.Message
	if err := json.Unmarshal(msg, &reply); err != nil || reply.ID != helloReplayID {
		return w, errors.New("daemon did not answer the replayed hello first")
	}
	if reply.Error != nil {
		return w, reply.Error
	}
	return w, json.Unmarshal(reply.Result, &w)
}

// failPending answers every extension request still waiting on the daemon
// with daemon_unavailable: never silence.
func (r *relay) failPending() {
	r.mu.Lock()
	ids := make([]int64, 0, len(r.pending))
	for id := range r.pending {
		ids = append(ids, id)
	}
	r.pending = map[int64]string{}
	r.mu.Unlock()
	for _, id := range ids {
		if err := r.replyError(id, unavailable()); err != nil {
			r.log.Warn("writing error reply to Chrome", "err", err)
		}
	}
}

// replyStarted answers daemon.start: started is false when a daemon was
// already running.
func (r *relay) replyStarted(id int64, w protocol.Welcome, started bool) {
	out, _ := protocol.Reply(id, map[string]any{"started": started, "daemon_version": w.Version, "daemon_pid": w.DaemonPID}, nil)
	if err := r.out.WriteMessage(out); err != nil {
		r.log.Warn("writing daemon.start reply to Chrome", "err", err)
	}
}
