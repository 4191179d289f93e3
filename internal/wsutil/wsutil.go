// Package wsutil holds what every Gasoline WebSocket endpoint shares on top
// of github.com/coder/websocket.
package wsutil

import (
	"context"
	"time"

	"github.com/coder/websocket"
)

// Write sends one text message without letting the caller's cancellation
// reach the connection: coder/websocket closes the connection when a
// write's context ends mid-write, so one abandoned call (a cancelled
// request, a screenshot's spare capture) would drop the link for everyone
// on it. A caller already done is refused before writing; a write begun
// finishes, bounded by bound.
func Write(ctx context.Context, c *websocket.Conn, data []byte, bound time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, data)
}
