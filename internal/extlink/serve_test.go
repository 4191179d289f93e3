package extlink

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// The link serves the extension's requests off its reader: a slow panel
// request never holds up the daemon's own calls over the same link (CDP
// round trips), nor the request's own call into the extension.

// slowServer is a Serve handler whose "panel.slow" blocks until release
// is closed (or the link ends), and whose "panel.export" makes a call into
// the extension over the same link, as the real export does for the viewport.
type slowServer struct {
	started chan string   // the method of each request that began
	release chan struct{} // closed: slow requests return
	ended   chan string   // the method of each request whose handler returned
}

func newSlowServer() *slowServer {
	return &slowServer{started: make(chan string, 32), release: make(chan struct{}), ended: make(chan string, 32)}
}

func (s *slowServer) serve(ctx context.Context, l *Link, method string, _ json.RawMessage) (any, *protocol.Error) {
	s.started <- method
	defer func() { s.ended <- method }()
	switch method {
	case "panel.slow":
		select {
		case <-s.release:
			return map[string]any{"slow": "done"}, nil
		case <-ctx.Done():
			return nil, protocol.Errorf(protocol.CodeExtensionDisconnected, true, "link ended")
		}
	case "panel.export":
		raw, err := l.Call(ctx, "cdp.send", map[string]any{"method": "Runtime.evaluate"})
		if err != nil {
			return nil, protocol.Errorf(protocol.CodeInternal, false, "%v", err)
		}
		return map[string]any{"viewport": json.RawMessage(raw)}, nil
	case "panel.panic":
		panic("a bug in a handler")
	}
	return nil, protocol.Errorf(protocol.CodeUnknownMethod, false, "no %s", method)
}

func TestCallsFlowDuringSlowRequest(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newSlowServer()
	l, ext, done := serve(t, Options{Serve: srv.serve})
	hello(t, ext, protocol.Version)

	send(t, ext, protocol.Message{ID: 5, Method: "panel.slow"})
	require.Equal(t, "panel.slow", <-srv.started)

	// While panel.slow is served, the daemon's calls (an MCP client's CDP
	// round trips) go out and their replies come back, one after another.
	for i := range 3 {
		res := make(chan json.RawMessage, 1)
		go func() {
			raw, err := l.Call(t.Context(), "cdp.send", map[string]any{"n": i})
			if err != nil {
				raw = json.RawMessage(`"` + err.Error() + `"`)
			}
			res <- raw
		}()
		req := recv(t, ext)
		require.Equal(t, "cdp.send", req.Method, "call %d: the slow request's reply came first", i)
		want := fmt.Sprintf(`{"n":%d}`, i)
		send(t, ext, protocol.Message{ID: req.ID, Result: json.RawMessage(want)})
		require.JSONEq(t, want, string(<-res))
	}
	// ping, answered on the reader, too.
	send(t, ext, protocol.Message{ID: 6, Method: "ping"})
	require.Equal(t, int64(6), recv(t, ext).ID)

	close(srv.release)
	m := recv(t, ext)
	require.Equal(t, int64(5), m.ID)
	require.JSONEq(t, `{"slow":"done"}`, string(m.Result))

	ext.Close("over")
	<-done
}

// A request whose handler calls into the extension over the same link
// (panel.export reading the viewport) gets its answer: the reader that
// delivers the inner reply is not the goroutine waiting for it.
func TestRequestCallsBackOverTheLink(t *testing.T) {
	srv := newSlowServer()
	_, ext, _ := serve(t, Options{Serve: srv.serve})
	hello(t, ext, protocol.Version)

	send(t, ext, protocol.Message{ID: 7, Method: "panel.export"})
	inner := recv(t, ext)
	require.Equal(t, "cdp.send", inner.Method)
	send(t, ext, protocol.Message{ID: inner.ID, Result: json.RawMessage(`{"width":800,"height":600}`)})
	m := recv(t, ext)
	require.Equal(t, int64(7), m.ID)
	require.Nil(t, m.Error)
	require.JSONEq(t, `{"viewport":{"width":800,"height":600}}`, string(m.Result))
}

func TestBusyOverTheBound(t *testing.T) {
	srv := newSlowServer()
	_, ext, _ := serve(t, Options{Serve: srv.serve, MaxServing: 2})
	hello(t, ext, protocol.Version)

	send(t, ext, protocol.Message{ID: 10, Method: "panel.slow"})
	send(t, ext, protocol.Message{ID: 11, Method: "panel.slow"})
	<-srv.started
	<-srv.started
	send(t, ext, protocol.Message{ID: 12, Method: "panel.slow"})
	m := recv(t, ext)
	require.Equal(t, int64(12), m.ID)
	require.NotNil(t, m.Error)
	require.Equal(t, protocol.CodeBusy, m.Error.Code)
	require.True(t, m.Error.Retryable)
	require.Positive(t, m.Error.RetryAfterMS)

	close(srv.release)
	got := map[int64]bool{}
	for range 2 {
		got[recv(t, ext).ID] = true
	}
	require.Equal(t, map[int64]bool{10: true, 11: true}, got)
	// Slots are given back: the next request is served.
	<-srv.ended
	<-srv.ended
	send(t, ext, protocol.Message{ID: 13, Method: "panel.slow"})
	m = recv(t, ext)
	require.Equal(t, int64(13), m.ID)
	require.Nil(t, m.Error)
}

// Handlers stop with the link: their context ends, and Serve returns only
// after every one of them did (no goroutine outlives the link).
func TestHandlersEndWithTheLink(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := newSlowServer()
	_, ext, done := serve(t, Options{Serve: srv.serve})
	hello(t, ext, protocol.Version)
	for id := int64(20); id < 24; id++ {
		send(t, ext, protocol.Message{ID: id, Method: "panel.slow"})
		<-srv.started
	}
	ext.Close("extension died")
	<-done
	require.Len(t, srv.ended, 4, "Serve returned before its handlers")
}

func TestHandlerPanicFailsOnlyItsRequest(t *testing.T) {
	srv := newSlowServer()
	_, ext, _ := serve(t, Options{Serve: srv.serve})
	hello(t, ext, protocol.Version)
	send(t, ext, protocol.Message{ID: 30, Method: "panel.panic"})
	m := recv(t, ext)
	require.Equal(t, int64(30), m.ID)
	require.Equal(t, protocol.CodeInternal, m.Error.Code)
	send(t, ext, protocol.Message{ID: 31, Method: "ping"})
	require.Equal(t, int64(31), recv(t, ext).ID)
}
