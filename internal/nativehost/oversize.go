package nativehost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// Messages over the link's 64 MiB limit (docs/PROTOCOL.md "Transports").
//
// From the daemon: the host reads at most maxWS bytes of a message, keeps
// reading to its end without keeping it (up to maxDiscard; beyond that the
// connection fails), and answers with message_too_large whoever waits: the
// daemon for a request of its own, the extension for the request a reply
// answers. The connection stays up.
//
// From the extension: a frame declaring more than the limit cannot be
// skipped safely (the length may be garbage), so the host tells the
// extension (the event link.error, code message_too_large) and exits.

// maxDiscard bounds the bytes of one oversized daemon message the host
// reads through.
const maxDiscard = 4 * maxWS

// EventLinkError is the host's notice of an error it can tie to no
// request, sent before it closes.
const EventLinkError = "link.error"

// oversize is what the host knows of a message it refused.
type oversize struct {
	id     int64
	method string
	bytes  int64
}

// readDaemon reads one daemon message; a message over maxWS is consumed
// and reported as an oversize instead.
func readDaemon(ctx context.Context, c *websocket.Conn) ([]byte, *oversize, error) {
	_, rd, err := c.Reader(ctx)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(rd, maxWS+1))
	if err != nil {
		return nil, nil, err
	}
	if n <= maxWS {
		return buf.Bytes(), nil, nil
	}
	h := gjson.GetManyBytes(buf.Bytes(), "id", "method")
	o := &oversize{id: h[0].Int(), method: h[1].String(), bytes: n}
	buf = bytes.Buffer{}
	rest, err := io.Copy(io.Discard, rd)
	o.bytes += rest
	return nil, o, err
}

// refuse answers for a daemon message the host would not relay.
func (r *relay) refuse(ctx context.Context, c *websocket.Conn, o *oversize) {
	e := protocol.Errorf(protocol.CodeMessageTooLarge, false,
		"the message is %d bytes, over the link's %d-byte limit; ask for less (a smaller screenshot, a narrower query)", o.bytes, maxWS)
	r.log.Warn("refused an oversized message from the daemon", "method", o.method, "id", o.id, "bytes", o.bytes)
	switch {
	case o.id != 0 && o.method != "": // the daemon's request: it gets the error
		out, _ := protocol.Reply(o.id, nil, e)
		if err := c.Write(ctx, websocket.MessageText, out); err != nil {
			r.log.Warn("answering the daemon", "err", err)
		}
	case o.id != 0: // a reply to the extension's request: the extension gets the error
		r.mu.Lock()
		delete(r.pending, o.id)
		r.mu.Unlock()
		if err := r.replyError(o.id, e); err != nil {
			r.log.Warn("writing error reply to Chrome", "err", err)
		}
	}
}

// tooLargeFromChrome tells the extension why the host is closing.
func (r *relay) tooLargeFromChrome(err error) {
	var tl *nativemsg.TooLargeError
	if !errors.As(err, &tl) {
		return
	}
	r.event(EventLinkError, map[string]any{"code": protocol.CodeMessageTooLarge,
		"message": fmt.Sprintf("a message from the extension declared %d bytes, over the %d-byte limit; gasoline-host cannot read past it and closes the port (the extension reconnects)", tl.Len, tl.Max)})
}
