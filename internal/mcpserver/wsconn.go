package mcpserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/wsutil"
)

// MaxMessage bounds one MCP message on /ws/mcp.
const MaxMessage = protocol.MaxMessage

// wsTransport is an mcp.Transport over an accepted WebSocket: one JSON-RPC
// message per WebSocket text message. It is the daemon end of
// `gasoline-host --mcp`.
type wsTransport struct{ conn *wsConn }

// Connect implements mcp.Transport.
func (t *wsTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// SupportsProtocolVersion implements mcp.ProtocolVersionSupporter: the
// relay carries session-ful (initialize handshake) protocol versions.
func (t *wsTransport) SupportsProtocolVersion(v string) bool { return v < "2026-07-28" }

// wsConn is an mcp.Connection over a WebSocket. Messages that are not
// JSON-RPC are answered with a parse or invalid-request error here and the
// connection carries on: the SDK would end the session on a Read error.
type wsConn struct {
	c  *websocket.Conn
	id string

	closeOnce sync.Once
	readDead  chan struct{} // closed when the peer has gone
	deadOnce  sync.Once
	ended     atomic.Bool // the peer closed with CloseSessionEnd
}

func newWSConn(c *websocket.Conn, id string) *wsConn {
	return &wsConn{c: c, id: id, readDead: make(chan struct{})}
}

// SessionID implements mcp.Connection.
func (w *wsConn) SessionID() string { return w.id }

// Read implements mcp.Connection.
func (w *wsConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		_, data, err := w.c.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) == CloseSessionEnd {
				w.ended.Store(true)
			}
			w.deadOnce.Do(func() { close(w.readDead) })
			return nil, readErr(err)
		}
		msg, reply := checkMessage(data)
		if reply == nil {
			if unknownNotification(msg) {
				continue
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && !knownMethods[req.Method] {
				reply = methodNotFound(rawID(req.ID), req.Method)
			} else {
				return msg, nil
			}
		}
		if err := write(ctx, w.c, reply); err != nil {
			return nil, err
		}
	}
}

// unknownNotification reports a notification the server does not handle;
// it is ignored.
func unknownNotification(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && !req.IsCall() && !knownMethods[req.Method]
}

// readErr maps a clean close to io.EOF, which the SDK treats as the
// client going away.
func readErr(err error) error {
	switch websocket.CloseStatus(err) {
	case websocket.StatusNormalClosure, websocket.StatusGoingAway, CloseSessionEnd:
		return io.EOF
	}
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	return err
}

// Write implements mcp.Connection.
func (w *wsConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return write(ctx, w.c, data)
}

// writeTimeout bounds one write to a client.
const writeTimeout = 30 * time.Second

// write sends one message; a cancelled request's context does not close
// the client's connection (see wsutil.Write).
func write(ctx context.Context, c *websocket.Conn, data []byte) error {
	return wsutil.Write(ctx, c, data, writeTimeout)
}

// Close implements mcp.Connection. It is idempotent; a peer that has
// already gone is not waited for.
func (w *wsConn) Close() error {
	var err error
	w.closeOnce.Do(func() {
		select {
		case <-w.readDead:
			err = w.c.CloseNow()
		default:
			err = w.c.Close(websocket.StatusNormalClosure, "session closed")
		}
	})
	return err
}
