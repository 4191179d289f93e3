package nativehost

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// TestOversizedDaemonMessages: a daemon message over the 64 MiB limit is
// not relayed; whoever waits for it gets message_too_large (the daemon for
// its request, the extension for the request a reply answers), and the
// connection carries on.
func TestOversizedDaemonMessages(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	ext, done := startRelay(t, ctx, d.ensure)
	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	c := <-d.conns
	readWS(t, ctx, c)
	writeWS(t, ctx, c, protocol.Message{ID: 1, Result: json.RawMessage(`{}`)})
	ext.recv()

	big := json.RawMessage(`{"data":"` + strings.Repeat("x", maxWS) + `"}`)
	writeWS(t, ctx, c, protocol.Message{ID: 9, Method: "cdp.send", Params: big})
	m := readWS(t, ctx, c)
	require.Equal(t, int64(9), m.ID)
	require.NotNil(t, m.Error)
	require.Equal(t, protocol.CodeMessageTooLarge, m.Error.Code)
	require.Contains(t, m.Error.Message, "over the link's 67108864-byte limit")

	ext.send(protocol.Message{ID: 2, Method: "panel.export"})
	require.Equal(t, int64(2), readWS(t, ctx, c).ID)
	writeWS(t, ctx, c, protocol.Message{ID: 2, Result: big})
	r := ext.recv()
	require.Equal(t, int64(2), r.ID)
	require.Equal(t, protocol.CodeMessageTooLarge, r.Error.Code)

	ext.send(protocol.Message{ID: 3, Method: "ping"}) // the link still works
	require.Equal(t, int64(3), readWS(t, ctx, c).ID)
	ext.in.Close()
	require.NoError(t, <-done)
}

// TestOversizedFrameFromChrome: a frame declaring more than the limit ends
// the host, which says why first.
func TestOversizedFrameFromChrome(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	ext, done := startRelay(t, ctx, d.ensure)
	var hdr [4]byte
	binary.NativeEndian.PutUint32(hdr[:], 65<<20)
	_, err := ext.in.Write(hdr[:])
	require.NoError(t, err)
	ev := ext.recv()
	require.Equal(t, EventLinkError, ev.Method)
	require.Contains(t, string(ev.Params), `"code":"message_too_large"`)
	require.ErrorContains(t, <-done, "exceeds")
}
