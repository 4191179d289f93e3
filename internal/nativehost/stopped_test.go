package nativehost

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// TestDeliberateStopThenStart: after a deliberate stop the host starts no
// daemon; it tells the extension (link.daemon_stopped, once), answers its
// requests with daemon_stopped, and on daemon.start makes an explicit
// start, replays hello and answers {started: true}.
func TestDeliberateStopThenStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	stopped := &launcher.StoppedError{Stop: state.Stop{By: "SIGTERM", At: time.Now()}}
	ensure := func(context.Context) (launcher.Daemon, error) { return launcher.Daemon{}, stopped }
	ext, done := startRelayWith(t, ctx, Config{Ensure: ensure, Start: d.ensure})

	ev := ext.recv()
	require.Equal(t, protocol.EventLinkDaemonStopped, ev.Method)
	require.Contains(t, string(ev.Params), "Start button")
	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	m := ext.recv()
	require.Equal(t, int64(1), m.ID)
	require.Equal(t, protocol.CodeDaemonStopped, m.Error.Code, "one announcement per stop, then the answers")
	require.False(t, m.Error.Retryable)

	ext.send(protocol.Message{ID: 2, Method: protocol.MethodDaemonStart})
	c := <-d.conns
	hello := readWS(t, ctx, c)
	require.Equal(t, "hello", hello.Method, "the hello the extension sent while stopped is replayed")
	writeWS(t, ctx, c, protocol.Message{ID: hello.ID, Result: json.RawMessage(`{"version":"9.9","daemon_pid":77}`)})
	require.Equal(t, protocol.EventLinkReconnected, ext.recv().Method)
	started := ext.recv()
	require.Equal(t, int64(2), started.ID)
	require.JSONEq(t, `{"started":true,"daemon_version":"9.9","daemon_pid":77}`, string(started.Result))

	// Asked again while running: answered by the host, not forwarded.
	ext.send(protocol.Message{ID: 3, Method: protocol.MethodDaemonStart})
	require.JSONEq(t, `{"started":false,"daemon_version":"","daemon_pid":0}`, string(ext.recv().Result))
	ext.send(protocol.Message{ID: 4, Method: "ping"})
	require.Equal(t, int64(4), readWS(t, ctx, c).ID)

	ext.in.Close()
	require.NoError(t, <-done)
}
