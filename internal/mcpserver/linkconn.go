package mcpserver

import (
	"bufio"
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/mcpline"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// MaxMessage bounds one MCP message on the relay's link.
const MaxMessage = protocol.MaxMessage

// lineTransport is an mcp.Transport over an accepted link: one JSON-RPC
// message per line. It is the daemon end of the stdio relay.
type lineTransport struct{ conn *lineConn }

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// SupportsProtocolVersion implements mcp.ProtocolVersionSupporter: the
// relay carries session-ful (initialize handshake) protocol versions.
func (t *lineTransport) SupportsProtocolVersion(v string) bool { return v < "2026-07-28" }

// lineConn is an mcp.Connection over a link. Lines that are not JSON-RPC
// are answered with a parse or invalid-request error here and the session
// carries on (the SDK would end it on a Read error); a line over
// MaxMessage is answered and skipped to its newline; mcpline.End ends the
// session.
type lineConn struct {
	c   net.Conn
	br  *bufio.Reader
	id  string
	max int // the longest line read (MaxMessage)

	wmu       sync.Mutex // one write at a time, each whole
	closeOnce sync.Once
	ended     atomic.Bool // the relay sent mcpline.End
}

func newLineConn(c net.Conn, br *bufio.Reader, id string, max int) *lineConn {
	return &lineConn{c: c, br: br, id: id, max: max}
}

// SessionID implements mcp.Connection.
func (l *lineConn) SessionID() string { return l.id }

// Read implements mcp.Connection. ctx ending ends a blocked read.
func (l *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	stop := context.AfterFunc(ctx, func() { l.c.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	for {
		ln, err := mcpline.Read(l.br, l.max)
		var msg jsonrpc.Message
		var reply []byte
		switch {
		case ln.TooLong:
			reply = rpcError(nil, jsonrpc.CodeInvalidRequest, "invalid request: the message is longer than 64 MiB and was dropped")
		case ln.Blank():
		case mcpline.IsEnd(ln.Data):
			l.ended.Store(true)
			return nil, io.EOF
		default:
			msg, reply = check(ln.Data)
		}
		if msg != nil {
			return msg, nil // a last line without its newline too: the next Read ends
		}
		if reply != nil {
			if werr := l.writeLine(ctx, reply); werr != nil {
				return nil, werr
			}
		}
		if err != nil {
			return nil, readErr(ctx)
		}
	}
}

// check decodes one line: the message the server handles, or the answer
// to one it does not (nil, nil for an unknown notification: ignored).
func check(data []byte) (jsonrpc.Message, []byte) {
	msg, reply := checkMessage(data)
	switch {
	case reply != nil:
		return nil, reply
	case unknownNotification(msg):
		return nil, nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && !knownMethods[req.Method] {
		return nil, methodNotFound(rawID(req.ID), req.Method)
	}
	return msg, nil
}

// unknownNotification reports a notification the server does not handle;
// it is ignored.
func unknownNotification(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && !req.IsCall() && !knownMethods[req.Method]
}

// readErr maps the end of the link to io.EOF, which the SDK treats as the
// client going away.
func readErr(ctx context.Context) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return io.EOF
}

// Write implements mcp.Connection.
func (l *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return l.writeLine(ctx, append(data, '\n'))
}

// writeTimeout bounds one write to a client.
const writeTimeout = 30 * time.Second

// writeLine writes one whole line. A caller already done is refused; a
// write begun finishes, bounded by writeTimeout: one abandoned call never
// cuts a message short, which would break the link for the session.
func (l *lineConn) writeLine(ctx context.Context, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.c.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := l.c.Write(data)
	return err
}

// Close implements mcp.Connection. It is idempotent.
func (l *lineConn) Close() error {
	var err error
	l.closeOnce.Do(func() { err = l.c.Close() })
	return err
}
