package nativehost

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

func TestRelayReleasesAtRestAndRelaysOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	released := make(chan struct{}, 8)
	ext, done := startRelayWith(t, ctx, Config{
		Ensure:    d.ensure,
		RestAfter: 10 * time.Millisecond,
		Release:   func() { released <- struct{}{} },
	})

	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	c := <-d.conns
	require.Equal(t, "hello", readWS(t, ctx, c).Method)
	writeWS(t, ctx, c, protocol.Message{ID: 1, Result: json.RawMessage(`{"protocol":1}`)})
	require.Equal(t, int64(1), ext.recv().ID)

	select {
	case <-released:
	case <-ctx.Done():
		t.Fatal("the relay never released at rest")
	}
	// At rest and released, it relays as before, both ways.
	ext.send(protocol.Message{ID: 2, Method: "ping"})
	require.Equal(t, int64(2), readWS(t, ctx, c).ID)
	writeWS(t, ctx, c, protocol.Message{ID: 2, Result: json.RawMessage(`{"pong":true}`)})
	require.JSONEq(t, `{"pong":true}`, string(ext.recv().Result))

	ext.in.Close()
	require.NoError(t, <-done)
}
