package nativehost

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// fakeExt plays Chrome's side of the native port.
type fakeExt struct {
	t   *testing.T
	w   *nativemsg.Writer
	r   *nativemsg.Reader
	asm nativemsg.Assembler
	in  io.WriteCloser
}

func (f *fakeExt) send(m protocol.Message) {
	f.t.Helper()
	b, _ := json.Marshal(m)
	require.NoError(f.t, f.w.WriteFrame(b))
}

// recv returns the next whole message, reassembling chunk runs.
func (f *fakeExt) recv() protocol.Message {
	f.t.Helper()
	for {
		b, err := f.r.ReadFrame()
		require.NoError(f.t, err)
		if nativemsg.IsChunk(b) {
			msg, done, err := f.asm.Add(b)
			require.NoError(f.t, err)
			if !done {
				continue
			}
			b = msg
		}
		var m protocol.Message
		require.NoError(f.t, json.Unmarshal(b, &m), "frame is not a JSON message: %q", b)
		return m
	}
}

// startRelay runs a relay over pipes and returns Chrome's side of it and a
// channel with Run's result.
func startRelay(t *testing.T, ctx context.Context, ensure func(context.Context) (launcher.Daemon, error)) (*fakeExt, <-chan error) {
	return startRelayWith(t, ctx, Config{Ensure: ensure})
}

// startRelayWith is startRelay with more of the Config (In, Out and the
// backoff are the test's).
func startRelayWith(t *testing.T, ctx context.Context, cfg Config) (*fakeExt, <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	cfg.In, cfg.Out, cfg.MinBackoff, cfg.MaxBackoff = inR, outW, time.Millisecond, 10*time.Millisecond
	go func() {
		err := Run(ctx, cfg)
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return &fakeExt{t: t, w: nativemsg.NewWriter(inW), r: nativemsg.NewReader(outR, 0), in: inW}, done
}

// fakeDaemon is a scripted /ws/host endpoint: each accepted connection is
// handed to the test over conns.
type fakeDaemon struct {
	srv   *httptest.Server
	conns chan *websocket.Conn
	dir   string        // its state directory, with its link credential
	stop  chan struct{} // closed when the test ends: the handlers return
}

func newFakeDaemon(t *testing.T) *fakeDaemon {
	d := &fakeDaemon{conns: make(chan *websocket.Conn, 4), dir: t.TempDir(), stop: make(chan struct{})}
	tok, err := creds.Rotate(d.dir, creds.Link)
	if err != nil {
		t.Fatal(err)
	}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+tok {
			http.Error(w, "no", 401)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.SetReadLimit(protocol.MaxMessage)
		defer c.CloseNow()
		// A hijacked request's context does not end with the server, so
		// the handler holds the connection until the test ends.
		select {
		case d.conns <- c:
			<-d.stop
		case <-d.stop:
		}
	}))
	t.Cleanup(d.srv.Close)
	t.Cleanup(func() { close(d.stop) }) // runs first: Close does not wait for hijacked connections
	return d
}

func (d *fakeDaemon) ensure(context.Context) (launcher.Daemon, error) {
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(d.srv.URL, "http://"))
	p, _ := strconv.Atoi(port)
	return launcher.Daemon{Port: p, Dir: d.dir}, nil
}

// readWS returns the next message the host sent the daemon, skipping the
// host's own redaction.counts events (counts_test.go reads those).
func readWS(t *testing.T, ctx context.Context, c *websocket.Conn) protocol.Message {
	t.Helper()
	for {
		m := readAnyWS(t, ctx, c)
		if m.Method != MethodRedactionCounts {
			return m
		}
	}
}

func readAnyWS(t *testing.T, ctx context.Context, c *websocket.Conn) protocol.Message {
	t.Helper()
	_, b, err := c.Read(ctx)
	require.NoError(t, err)
	var m protocol.Message
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func writeWS(t *testing.T, ctx context.Context, c *websocket.Conn, m protocol.Message) {
	t.Helper()
	b, _ := json.Marshal(m)
	require.NoError(t, c.Write(ctx, websocket.MessageText, b))
}

func TestRelayBothWaysAndChunks(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	ext, done := startRelay(t, ctx, d.ensure)

	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	c := <-d.conns
	got := readWS(t, ctx, c)
	require.Equal(t, "hello", got.Method)
	writeWS(t, ctx, c, protocol.Message{ID: 1, Result: json.RawMessage(`{"protocol":1}`)})
	require.Equal(t, int64(1), ext.recv().ID)

	// A daemon → extension message over the 1 MiB frame limit arrives whole.
	big := strings.Repeat("é", 1<<20) // 2 MiB of UTF-8
	params, _ := json.Marshal(map[string]string{"echo": big})
	writeWS(t, ctx, c, protocol.Message{ID: 5, Method: "ping", Params: params})
	m := ext.recv()
	require.Equal(t, "ping", m.Method)
	var p map[string]string
	require.NoError(t, json.Unmarshal(m.Params, &p))
	require.Equal(t, big, p["echo"])

	// The extension's reply goes back to the daemon unchanged.
	ext.send(protocol.Message{ID: 5, Result: json.RawMessage(`{"pong":true}`)})
	require.Equal(t, int64(5), readWS(t, ctx, c).ID)

	// End of input: clean exit.
	ext.in.Close()
	require.NoError(t, <-done)
}

func TestInFlightRequestFailsWhenDaemonDiesThenRecovers(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	ext, done := startRelay(t, ctx, d.ensure)

	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	c := <-d.conns
	readWS(t, ctx, c)
	writeWS(t, ctx, c, protocol.Message{ID: 1, Result: json.RawMessage(`{}`)})
	ext.recv()

	// A request reaches the daemon, which dies before answering.
	ext.send(protocol.Message{ID: 2, Method: "ping"})
	require.Equal(t, int64(2), readWS(t, ctx, c).ID)
	c.CloseNow()

	m := ext.recv()
	require.Equal(t, int64(2), m.ID)
	require.NotNil(t, m.Error, "in-flight request must get an error, got %+v", m)
	require.Equal(t, protocol.CodeDaemonUnavailable, m.Error.Code)
	require.True(t, m.Error.Retryable)

	// The relay reconnects and replays hello before anything else.
	c2 := <-d.conns
	hello := readWS(t, ctx, c2)
	require.Equal(t, "hello", hello.Method)
	require.Less(t, hello.ID, int64(0), "the host's own requests use negative ids")
	writeWS(t, ctx, c2, protocol.Message{ID: hello.ID, Result: json.RawMessage(`{"version":"9.9"}`)})
	ev := ext.recv()
	require.Equal(t, protocol.EventLinkReconnected, ev.Method)
	require.JSONEq(t, `{"daemon_version":"9.9","daemon_pid":0}`, string(ev.Params))

	ext.send(protocol.Message{ID: 3, Method: "ping"})
	require.Equal(t, int64(3), readWS(t, ctx, c2).ID)
	writeWS(t, ctx, c2, protocol.Message{ID: 3, Result: json.RawMessage(`{"pong":true}`)})
	require.JSONEq(t, `{"pong":true}`, string(ext.recv().Result))

	ext.in.Close()
	require.NoError(t, <-done)
}

func TestRequestsWhileDaemonUnreachableGetErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ensure := func(context.Context) (launcher.Daemon, error) {
		return launcher.Daemon{}, io.ErrUnexpectedEOF
	}
	ext, done := startRelay(t, ctx, ensure)
	ev := ext.recv()
	require.Equal(t, protocol.EventLinkDaemonUnavailable, ev.Method)
	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{}`)})
	m := ext.recv()
	require.Equal(t, int64(1), m.ID)
	require.Equal(t, protocol.CodeDaemonUnavailable, m.Error.Code)
	// Only one announcement per outage: the next frame is the next reply.
	ext.send(protocol.Message{ID: 2, Method: "ping"})
	require.Equal(t, int64(2), ext.recv().ID)
	ext.in.Close()
	require.NoError(t, <-done)
}

func TestGarbageFramesAreSkipped(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	ext, done := startRelay(t, ctx, d.ensure)
	require.NoError(t, ext.w.WriteFrame([]byte("not json")))
	ext.send(protocol.Message{ID: 7, Method: "ping"})
	c := <-d.conns
	require.Equal(t, int64(7), readWS(t, ctx, c).ID)
	ext.in.Close()
	require.NoError(t, <-done)
}

func TestOriginRefused(t *testing.T) {
	var out strings.Builder
	err := Main(t.Context(), "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/", nil, strings.NewReader(""), &out, io.Discard)
	require.ErrorContains(t, err, "refusing caller")
	require.Empty(t, out.String(), "nothing may reach stdout")
}
