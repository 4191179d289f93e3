package nativehost

import (
	"context"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
)

// outbox orders the daemon's messages on their way to Chrome. The panel
// terminal's stream (term.* events: output, exit) waits behind everything
// else — CDP replies and events, tab events, the panel's replies — so a
// flood of terminal output delays a CDP reply by one frame at most. Each
// queue keeps its own order; both are bounded (the daemon sends terminal
// output only within the panel's credit, so the low queue stays short).
type outbox struct {
	hi, lo chan []byte
}

// outboxDepth bounds each queue, in messages.
const outboxDepth = 64

func newOutbox() *outbox {
	return &outbox{hi: make(chan []byte, outboxDepth), lo: make(chan []byte, outboxDepth)}
}

// lowPriority reports a message of the terminal's stream: an event whose
// method starts with "term.".
func lowPriority(h head) bool {
	return h.ID == 0 && strings.HasPrefix(h.Method, "term.")
}

// queue is where a message with head h goes.
func (o *outbox) queue(h head) chan<- []byte {
	if lowPriority(h) {
		return o.lo
	}
	return o.hi
}

// close ends the queues; run writes what is left, then returns.
func (o *outbox) close() {
	close(o.hi)
	close(o.lo)
}

// run writes queued messages to w, high priority first, until both queues
// are closed and empty, ctx ends, or a write fails.
func (o *outbox) run(ctx context.Context, w *nativemsg.Writer) error {
	hi, lo := o.hi, o.lo
	for hi != nil || lo != nil {
		var msg []byte
		var ok bool
		select {
		case msg, ok = <-hi:
			if !ok {
				hi = nil
				continue
			}
		default:
			select {
			case msg, ok = <-hi:
				if !ok {
					hi = nil
					continue
				}
			case msg, ok = <-lo:
				if !ok {
					lo = nil
					continue
				}
			case <-ctx.Done():
				return nil
			}
		}
		if err := w.WriteMessage(msg); err != nil {
			return err
		}
	}
	return nil
}
