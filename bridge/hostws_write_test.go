package bridge

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// A call abandoned mid-write (its context cancelled while the message is
// on the wire) must not close the link: coder/websocket closes the
// connection when a write's context ends, which dropped the extension link
// for every session whenever a screenshot's extra capture requests were
// cancelled.
func TestHostWriteSurvivesCancelledCaller(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 16<<20) // far beyond the socket buffers: the write blocks
	callCtx, cancelCall := context.WithCancel(context.Background())
	firstErr := make(chan error, 1)
	secondErr := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		conn := wsConn{c: c}
		firstErr <- conn.Write(callCtx, big)
		secondErr <- conn.Write(context.Background(), []byte("still here"))
		<-c.CloseRead(context.Background()).Done() // the client went (a hijacked request's context never ends)
	}))
	defer srv.Close()

	ctx := t.Context()
	c, _, err := websocket.Dial(ctx, "ws"+srv.URL[len("http"):], nil)
	require.NoError(t, err)
	defer c.CloseNow()
	c.SetReadLimit(32 << 20)

	// The frame header has arrived, so the server is mid-write; now the
	// caller gives up.
	_, rd, err := c.Reader(ctx)
	require.NoError(t, err)
	cancelCall()
	got, err := io.ReadAll(rd)
	require.NoError(t, err, "the link was closed under the message")
	require.Len(t, got, len(big))
	require.NoError(t, <-firstErr)

	_, msg, err := c.Read(ctx)
	require.NoError(t, err, "the link did not survive the abandoned call")
	require.Equal(t, "still here", string(msg))
	require.NoError(t, <-secondErr)
}
