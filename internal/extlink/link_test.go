package extlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// pipe is an in-memory message connection; its peer is the extension.
type pipe struct {
	in     chan []byte
	out    chan []byte
	closed chan struct{}
}

func newPipe() (*pipe, *pipe) {
	a2b, b2a, done := make(chan []byte, 16), make(chan []byte, 16), make(chan struct{})
	return &pipe{in: b2a, out: a2b, closed: done}, &pipe{in: a2b, out: b2a, closed: done}
}

func (p *pipe) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-p.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipe) Write(ctx context.Context, b []byte) error {
	select {
	case p.out <- b:
		return nil
	case <-p.closed:
		return io.ErrClosedPipe
	}
}

func (p *pipe) Close(string) error {
	select {
	case <-p.closed:
	default:
		close(p.closed)
	}
	return nil
}

func send(t *testing.T, p *pipe, m protocol.Message) {
	b, _ := json.Marshal(m)
	require.NoError(t, p.Write(t.Context(), b))
}

func recv(t *testing.T, p *pipe) protocol.Message {
	b, err := p.Read(t.Context())
	require.NoError(t, err)
	var m protocol.Message
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// serve runs a Link; the returned channel closes when Serve returns.
func serve(t *testing.T, opts Options) (*Link, *pipe, <-chan struct{}) {
	daemon, ext := newPipe()
	l := New(daemon, opts)
	done := make(chan struct{})
	go func() { defer close(done); l.Serve(t.Context()) }()
	t.Cleanup(func() { daemon.Close("test over"); <-done })
	return l, ext, done
}

func hello(t *testing.T, ext *pipe, proto int) protocol.Message {
	p, _ := json.Marshal(protocol.Hello{Protocol: proto, Role: "extension"})
	send(t, ext, protocol.Message{ID: 1, Method: "hello", Params: p})
	return recv(t, ext)
}

// helloReady completes the handshake and waits until the link serves
// calls: the welcome is written before the link is marked ready (so the
// extension hears nothing before it), and a test's Call must not race that.
func helloReady(t *testing.T, l *Link, ext *pipe) {
	t.Helper()
	hello(t, ext, protocol.Version)
	<-l.Ready()
}

func TestHandshake(t *testing.T) {
	readied := make(chan *Link, 1)
	l, ext, _ := serve(t, Options{Version: "1.2.3", OnReady: func(l *Link) { readied <- l }})

	send(t, ext, protocol.Message{ID: 9, Method: "ping"})
	m := recv(t, ext)
	require.Equal(t, protocol.CodeNotReady, m.Error.Code, "requests before hello are refused")

	_, err := l.Call(t.Context(), "ping", nil)
	require.ErrorContains(t, err, protocol.CodeNotReady)

	m = hello(t, ext, protocol.Version)
	require.Nil(t, m.Error)
	var w protocol.Welcome
	require.NoError(t, json.Unmarshal(m.Result, &w))
	require.Equal(t, "1.2.3", w.Version)
	require.Equal(t, 1<<20, w.MaxFrame)
	require.Same(t, l, <-readied)

	send(t, ext, protocol.Message{ID: 10, Method: "ping"})
	require.JSONEq(t, `true`, string(mustGet(t, recv(t, ext).Result, "pong")))
	send(t, ext, protocol.Message{ID: 11, Method: "nope"})
	require.Equal(t, protocol.CodeUnknownMethod, recv(t, ext).Error.Code)
}

func TestProtocolMismatch(t *testing.T) {
	l, ext, _ := serve(t, Options{})
	m := hello(t, ext, protocol.Version+1)
	require.Equal(t, protocol.CodeProtocolMismatch, m.Error.Code)
	select {
	case <-l.Ready():
		t.Fatal("link became ready on a protocol mismatch")
	default:
	}
}

func TestCallRepliesAndErrors(t *testing.T) {
	l, ext, _ := serve(t, Options{})
	helloReady(t, l, ext)

	type out struct {
		raw json.RawMessage
		err error
	}
	res := make(chan out, 2)
	go func() { r, err := l.Call(t.Context(), "tabs.query", nil); res <- out{r, err} }()
	go func() { r, err := l.Call(t.Context(), "cdp.send", nil); res <- out{r, err} }()
	a, b := recv(t, ext), recv(t, ext)
	// Answer out of order: replies match by id.
	for _, req := range []protocol.Message{b, a} {
		if req.Method == "tabs.query" {
			send(t, ext, protocol.Message{ID: req.ID, Result: json.RawMessage(`{"tabs":[]}`)})
		} else {
			send(t, ext, protocol.Message{ID: req.ID, Error: &protocol.Error{Code: protocol.CodeTabClosed, Message: "gone"}})
		}
	}
	got := []out{<-res, <-res}
	var okRes, errRes int
	for _, o := range got {
		if o.err != nil {
			var pe *protocol.Error
			require.True(t, errors.As(o.err, &pe))
			require.Equal(t, protocol.CodeTabClosed, pe.Code)
			errRes++
		} else {
			require.JSONEq(t, `{"tabs":[]}`, string(o.raw))
			okRes++
		}
	}
	require.Equal(t, 1, okRes)
	require.Equal(t, 1, errRes)
}

func TestPendingCallsFailWhenLinkCloses(t *testing.T) {
	l, ext, done := serve(t, Options{})
	helloReady(t, l, ext)
	errc := make(chan error, 1)
	go func() { _, err := l.Call(t.Context(), "cdp.send", nil); errc <- err }()
	recv(t, ext) // in flight, never answered
	ext.Close("extension died")
	err := <-errc
	var pe *protocol.Error
	require.True(t, errors.As(err, &pe), "got %v", err)
	require.Equal(t, protocol.CodeExtensionDisconnected, pe.Code)
	require.True(t, pe.Retryable)
	<-done
	_, err = l.Call(t.Context(), "ping", nil)
	require.ErrorAs(t, err, &pe)
}

func TestCallBoundedByContext(t *testing.T) {
	l, ext, _ := serve(t, Options{})
	helloReady(t, l, ext)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := l.Call(ctx, "cdp.send", nil) // the extension never answers
	var pe *protocol.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, protocol.CodeTimeout, pe.Code)
}

func mustGet(t *testing.T, raw json.RawMessage, k string) json.RawMessage {
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	return m[k]
}

// The welcome is the first thing the extension hears: what OnReady sends
// (reconcile's tabs.query, an event) comes after it, never before.
func TestWelcomeBeforeAnythingOnReadySends(t *testing.T) {
	_, ext, _ := serve(t, Options{Version: "1.2.3", OnReady: func(l *Link) {
		require.NoError(t, l.Notify(t.Context(), "tabs.grouped", map[string]int{"n": 1}))
	}})
	m := hello(t, ext, protocol.Version)
	require.Equal(t, int64(1), m.ID, "first message: the welcome, got %+v", m)
	require.Nil(t, m.Error)
	next := recv(t, ext)
	require.Equal(t, "tabs.grouped", next.Method)
}

// A page can hand back text that is not UTF-8 (half of a surrogate pair
// cut by a substring): the reply still reaches the caller, as it did when
// the link decoded with encoding/json.
func TestReplyWithTextThatIsNotUTF8(t *testing.T) {
	l, ext, _ := serve(t, Options{})
	helloReady(t, l, ext)
	for _, result := range []string{`{"value":"\ud83d cut"}`, "{\"value\":\"\xff\"}"} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a dropped reply never comes
		res := make(chan json.RawMessage, 1)
		go func() { r, _ := l.Call(ctx, "cdp.send", nil); res <- r }()
		req := recv(t, ext)
		require.NoError(t, ext.Write(t.Context(), []byte(fmt.Sprintf(`{"id":%d,"result":%s}`, req.ID, result))))
		require.Equal(t, result, string(<-res))
		cancel()
	}
}

// A part of a reply sent ahead of it (protocol.EventReplyPart) reaches the
// call whose context collects parts, before the call returns; a part for a
// call that did not ask, for no call, or malformed is dropped, and the
// link carries on. Parts never reach OnEvent.
func TestReplyPartsReachTheirCall(t *testing.T) {
	events := make(chan string, 8)
	l, ext, _ := serve(t, Options{OnEvent: func(_ *Link, ev Event) { events <- ev.Method }})
	helloReady(t, l, ext)

	part := func(id int64, body string) {
		p, _ := json.Marshal(protocol.ReplyPart{ID: id, Part: json.RawMessage(body)})
		send(t, ext, protocol.Message{Method: protocol.EventReplyPart, Params: p})
	}
	ctx, parts := protocol.WithParts(t.Context())
	res := make(chan json.RawMessage, 1)
	go func() { r, _ := l.Call(ctx, "cdp.sequence", nil); res <- r }()
	req := recv(t, ext)
	part(req.ID, `{"step":1,"result":"a"}`)
	part(req.ID+100, `{"step":9}`)                                                        // no such call
	send(t, ext, protocol.Message{Method: protocol.EventReplyPart, Params: []byte(`{}`)}) // malformed
	part(req.ID, `{"step":2,"result":"b"}`)
	send(t, ext, protocol.Message{ID: req.ID, Result: json.RawMessage(`{"results":[]}`)})
	require.JSONEq(t, `{"results":[]}`, string(<-res))
	require.Len(t, parts.All(), 2)
	require.JSONEq(t, `{"step":1,"result":"a"}`, string(parts.All()[0]))
	require.JSONEq(t, `{"step":2,"result":"b"}`, string(parts.All()[1]))

	// A call that collects none: its parts are dropped, its reply stands.
	go func() { r, _ := l.Call(t.Context(), "cdp.sequence", nil); res <- r }()
	req = recv(t, ext)
	part(req.ID, `{"step":0,"result":"c"}`)
	send(t, ext, protocol.Message{ID: req.ID, Result: json.RawMessage(`{"ok":true}`)})
	require.JSONEq(t, `{"ok":true}`, string(<-res))

	// A call holds at most protocol.MaxParts parts; more are dropped.
	ctx, parts = protocol.WithParts(t.Context())
	go func() { r, _ := l.Call(ctx, "cdp.sequence", nil); res <- r }()
	req = recv(t, ext)
	for i := range protocol.MaxParts + 5 {
		part(req.ID, fmt.Sprintf(`{"step":%d}`, i))
	}
	send(t, ext, protocol.Message{ID: req.ID, Result: json.RawMessage(`{}`)})
	<-res
	require.Len(t, parts.All(), protocol.MaxParts)

	send(t, ext, protocol.Message{Method: "tabs.updated", Params: []byte(`{}`)})
	require.Equal(t, "tabs.updated", <-events, "parts are not events of the extension's")
}
