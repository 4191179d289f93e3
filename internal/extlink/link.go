// Package extlink is the daemon's side of the extension link: one Link per
// native host connection, request/reply matching for calls the daemon makes
// into the extension, the hello handshake, and dispatch of the extension's
// events. See docs/PROTOCOL.md.
package extlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// Conn is one message-oriented connection to a native host (a WebSocket in
// production, an in-memory pipe in tests).
type Conn interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, msg []byte) error
	Close(reason string) error
}

// Event is a one-way message from the extension.
type Event struct {
	Method string
	Params json.RawMessage
}

// Options configures a Link. Zero values are valid.
type Options struct {
	// Version is the daemon version answered in hello.
	Version string
	// OnEvent receives the extension's events in arrival order, on the
	// link's read goroutine; it must not block for long.
	OnEvent func(l *Link, ev Event)
	// OnReady is called once after a successful hello.
	OnReady func(l *Link)
	// Serve answers the extension's requests other than hello and ping
	// (the agent panel's calls). Each request runs in its own goroutine,
	// off the read goroutine, at most MaxServing at once; ctx ends when the
	// link does, and Serve (the Link's) waits for every handler to return.
	// Nil: every other method is unknown.
	Serve func(ctx context.Context, l *Link, method string, params json.RawMessage) (any, *protocol.Error)
	// MaxServing bounds the requests served at once; default 16. A
	// request over the bound is answered at once with busy (retryable):
	// the reader never waits for a handler, and a stuck handler shows up
	// as an error rather than a queue that grows.
	MaxServing int
	Logger     *slog.Logger
}

// DefaultMaxServing is Options.MaxServing's default: far above what the
// panel keeps in flight (status, approvals, providers, history, a chat, an
// export, a terminal).
const DefaultMaxServing = 16

// Link is one live connection to an extension through a native host.
type Link struct {
	conn Conn
	opts Options
	log  *slog.Logger

	nextID atomic.Int64
	// lastRecv is when the link last read a message (unix nanoseconds):
	// a browser that answers nothing shows here.
	lastRecv atomic.Int64

	mu      sync.Mutex
	pending map[int64]pendingCall
	closed  error // non-nil once the link is closed
	hello   *protocol.Hello
	ready   chan struct{}

	slots   chan struct{}  // one token per request being served
	serving sync.WaitGroup // the request handlers; Serve waits for them
}

// pendingCall is a call waiting for its reply, and where the parts sent
// ahead of that reply go (protocol.EventReplyPart; nil: dropped).
type pendingCall struct {
	ch    chan result
	parts *protocol.Parts
}

type result struct {
	raw json.RawMessage
	err *protocol.Error
}

// New wraps conn. Call Serve to run it.
func New(conn Conn, opts Options) *Link {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxServing <= 0 {
		opts.MaxServing = DefaultMaxServing
	}
	return &Link{conn: conn, opts: opts, log: log, pending: map[int64]pendingCall{}, ready: make(chan struct{}),
		slots: make(chan struct{}, opts.MaxServing)}
}

// ErrClosed is wrapped by errors of calls on a closed link.
var ErrClosed = errors.New("extlink: link closed")

// Serve reads messages until the connection fails or ctx ends, then fails
// every pending call with extension_disconnected, ends the contexts of the
// requests being served and waits for their handlers. It owns the read
// side, and it never blocks on a handler: requests are served off it.
func (l *Link) Serve(ctx context.Context) error {
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var err error
	for {
		var raw []byte
		raw, err = l.conn.Read(ctx)
		if err != nil {
			break
		}
		l.lastRecv.Store(time.Now().UnixNano())
		l.handle(hctx, raw)
	}
	l.shutdown(err)
	cancel()
	l.serving.Wait()
	return err
}

// LastReceived is when the link last read a message from the extension
// (zero before the first).
func (l *Link) LastReceived() time.Time {
	if n := l.lastRecv.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// Ready is closed after a successful hello.
func (l *Link) Ready() <-chan struct{} { return l.ready }

// Hello returns the extension's hello params, or nil before the handshake.
func (l *Link) Hello() *protocol.Hello {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hello
}

// Close closes the connection; Serve then returns.
func (l *Link) Close(reason string) error { return l.conn.Close(reason) }

// Call sends a request to the extension and waits for its reply, ctx's
// deadline, or the link's end. Extension-side failures come back as
// *protocol.Error.
func (l *Link) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	select {
	case <-l.ready:
	default:
		return nil, protocol.Errorf(protocol.CodeNotReady, true, "the extension has not completed its handshake yet; retry in a moment")
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("extlink: encoding %s params: %w", method, err)
	}
	id := l.nextID.Add(1)
	ch := make(chan result, 1)
	l.mu.Lock()
	if l.closed != nil {
		l.mu.Unlock()
		return nil, disconnected(method)
	}
	l.pending[id] = pendingCall{ch: ch, parts: protocol.PartsOf(ctx)}
	l.mu.Unlock()
	defer l.forget(id)

	msg, _ := json.Marshal(protocol.Message{ID: id, Method: method, Params: p})
	if err := l.conn.Write(ctx, msg); err != nil {
		if ctx.Err() != nil {
			return nil, timeoutErr(method, ctx)
		}
		return nil, disconnected(method)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return r.raw, nil
	case <-ctx.Done():
		return nil, timeoutErr(method, ctx)
	}
}

func timeoutErr(method string, ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return protocol.Errorf(protocol.CodeTimeout, true, "the extension did not answer %s in time; the tab may be busy, retry or raise timeout_ms", method)
	}
	return ctx.Err()
}

func disconnected(method string) *protocol.Error {
	return protocol.Errorf(protocol.CodeExtensionDisconnected, true,
		"the browser extension disconnected while %s was in flight; it reconnects by itself, retry shortly", method)
}

func (l *Link) forget(id int64) {
	l.mu.Lock()
	delete(l.pending, id)
	l.mu.Unlock()
}

func (l *Link) shutdown(cause error) {
	if cause == nil {
		cause = ErrClosed
	}
	l.mu.Lock()
	l.closed = cause
	pend := l.pending
	l.pending = map[int64]pendingCall{}
	l.mu.Unlock()
	for _, c := range pend {
		c.ch <- result{err: disconnected("a command")}
	}
}

func (l *Link) handle(ctx context.Context, raw []byte) {
	var m protocol.Message
	// JSON v2 (cdproto's layer): a screenshot's reply is ~40 KB, which
	// encoding/json scans twice and v2 once, ~4× faster. Text that is not
	// UTF-8 (a lone surrogate a page returned) passes as encoding/json let it.
	if err := jsonv2.Unmarshal(raw, &m, jsonv2.AllowInvalidUTF8(true)); err != nil {
		l.log.Warn("extlink: malformed message dropped", "bytes", len(raw))
		return
	}
	switch {
	case m.IsReply():
		l.mu.Lock()
		c, ok := l.pending[m.ID]
		delete(l.pending, m.ID)
		l.mu.Unlock()
		if !ok {
			l.log.Debug("extlink: reply to unknown id", "id", m.ID)
			return
		}
		c.ch <- result{raw: m.Result, err: m.Error}
	case m.IsEvent() && m.Method == protocol.EventReplyPart:
		l.part(m.Params)
	case m.IsRequest():
		l.request(ctx, &m)
	case m.IsEvent():
		if l.opts.OnEvent != nil {
			l.opts.OnEvent(l, Event{Method: m.Method, Params: m.Params})
		}
	default:
		l.log.Warn("extlink: message of no known shape dropped", "bytes", len(raw))
	}
}

// part hands a part sent ahead of its reply to the call waiting for it
// (protocol.EventReplyPart). The reply comes after it on the same
// connection, so the call has it by the time it returns; a part for no
// call, or for one that did not ask, is dropped.
func (l *Link) part(params json.RawMessage) {
	var p protocol.ReplyPart
	if err := jsonv2.Unmarshal(params, &p, jsonv2.AllowInvalidUTF8(true)); err != nil || p.ID == 0 || len(p.Part) == 0 {
		l.log.Warn("extlink: malformed reply part dropped", "bytes", len(params))
		return
	}
	l.mu.Lock()
	c, ok := l.pending[p.ID]
	l.mu.Unlock()
	if !ok || c.parts == nil {
		l.log.Debug("extlink: reply part for no call that asked for it dropped", "id", p.ID)
		return
	}
	if !c.parts.Add(p.Part) {
		l.log.Warn("extlink: reply part over the bound dropped", "id", p.ID, "max", protocol.MaxParts)
	}
}

// request answers one of the extension's requests. hello, ping and the
// refusals are answered here, on the read goroutine (they are quick, and
// hello must complete before the next message is read); everything else is
// served in a goroutine of its own, bounded by the link's slots.
func (l *Link) request(ctx context.Context, m *protocol.Message) {
	if m.Method == protocol.MethodHello {
		res, first, perr := l.onHello(m.Params)
		l.reply(ctx, m, res, perr)
		if first { // after the welcome: the extension hears nothing from a daemon it has not met
			close(l.ready)
			if l.opts.OnReady != nil {
				l.opts.OnReady(l)
			}
		}
		return
	}
	select {
	case <-l.ready:
	default:
		l.reply(ctx, m, nil, protocol.Errorf(protocol.CodeNotReady, false, "send hello first"))
		return
	}
	switch {
	case m.Method == protocol.MethodPing:
		l.reply(ctx, m, map[string]any{"pong": true, "time": time.Now().UTC().Format(time.RFC3339Nano)}, nil)
		return
	case l.opts.Serve == nil:
		l.reply(ctx, m, nil, protocol.Errorf(protocol.CodeUnknownMethod, false, "the daemon has no method %q", m.Method))
		return
	}
	select {
	case l.slots <- struct{}{}:
	default:
		l.log.Warn("extlink: request refused, too many in flight", "method", m.Method, "max", cap(l.slots))
		e := protocol.Errorf(protocol.CodeBusy, true, "the daemon is already serving %d requests from this extension; retry shortly", cap(l.slots))
		e.RetryAfterMS = 250
		l.reply(ctx, m, nil, e)
		return
	}
	l.serving.Add(1)
	go func() {
		defer l.serving.Done()
		defer func() { <-l.slots }()
		res, perr := l.serveOne(ctx, m)
		l.reply(ctx, m, res, perr)
	}()
}

// serveOne runs the Serve handler; a panic in it fails the request, never
// the daemon.
func (l *Link) serveOne(ctx context.Context, m *protocol.Message) (res any, perr *protocol.Error) {
	defer func() {
		if p := recover(); p != nil {
			l.log.Error("extlink: request handler panicked", "method", m.Method, "panic", fmt.Sprint(p))
			res, perr = nil, protocol.Errorf(protocol.CodeInternal, false, "the daemon failed serving %s (a bug; see logs/daemon.log)", m.Method)
		}
	}()
	return l.opts.Serve(ctx, l, m.Method, m.Params)
}

// reply writes the answer to m, bounded; the caller's cancellation (the
// link ending) drops it.
func (l *Link) reply(ctx context.Context, m *protocol.Message, res any, perr *protocol.Error) {
	out, err := protocol.Reply(m.ID, res, perr)
	if err == nil {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = l.conn.Write(wctx, out)
		cancel()
	}
	if err != nil {
		l.log.Warn("extlink: writing reply", "method", m.Method, "err", err)
	}
}

// Notify sends an event to the extension (no reply).
func (l *Link) Notify(ctx context.Context, method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("extlink: encoding %s params: %w", method, err)
	}
	msg, _ := json.Marshal(protocol.Message{Method: method, Params: p})
	return l.conn.Write(ctx, msg)
}

// onHello records the extension's hello; first is true for the link's
// first successful hello (OnReady is due once the welcome is written).
func (l *Link) onHello(params json.RawMessage) (res any, first bool, perr *protocol.Error) {
	var h protocol.Hello
	if err := json.Unmarshal(params, &h); err != nil {
		return nil, false, protocol.Errorf(protocol.CodeBadRequest, false, "hello params: %v", err)
	}
	if h.Protocol != protocol.Version {
		return nil, false, protocol.Errorf(protocol.CodeProtocolMismatch, false,
			"extension speaks link protocol %d, daemon speaks %d; update the extension and gasoline-host to the same release", h.Protocol, protocol.Version)
	}
	l.mu.Lock()
	first = l.hello == nil
	l.hello = &h
	l.mu.Unlock()
	return protocol.Welcome{Protocol: protocol.Version, Version: l.opts.Version, DaemonPID: pid(), MaxFrame: 1 << 20}, first, nil
}
