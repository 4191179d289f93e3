package cdp

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/io"
)

// StreamChunk is how much one IO.read asks for: a chunk travels back over
// the extension link base64-encoded, well under its message bound.
const StreamChunk = 1 << 20

// ErrStreamTooLarge is returned by ReadStream past its bound.
var ErrStreamTooLarge = errors.New("cdp: stream larger than allowed")

// ReadStream reads a CDP stream (a trace, a PDF, a response body) chunk
// by chunk into each until its end, then closes it. Past max bytes it
// stops with ErrStreamTooLarge. The stream is closed whatever happens.
func (s *Session) ReadStream(ctx context.Context, handle io.StreamHandle, max int64, each func([]byte) error) error {
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		cdproto.Call(cctx, s, io.Close, io.CloseParams{Handle: handle})
	}()
	var n int64
	for {
		r, err := cdproto.Call(ctx, s, io.Read, io.ReadParams{Handle: handle, Size: StreamChunk})
		if err != nil {
			return fmt.Errorf("reading stream: %w", err)
		}
		if n += int64(len(r.Data)); n > max {
			return ErrStreamTooLarge
		}
		if len(r.Data) > 0 {
			if err := each(r.Data); err != nil {
				return err
			}
		}
		if r.EOF {
			return nil
		}
	}
}
