package nativehost

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
)

// frames splits native-messaging output into its bodies.
func frames(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	for len(b) > 0 {
		require.GreaterOrEqual(t, len(b), 4)
		n := int(binary.NativeEndian.Uint32(b))
		out = append(out, string(b[4:4+n]))
		b = b[4+n:]
	}
	return out
}

// Queued terminal output waits behind a CDP reply and events that arrive
// after it; each kind keeps its order.
func TestOutboxTerminalYields(t *testing.T) {
	o := newOutbox()
	for i := range 5 {
		msg := fmt.Sprintf(`{"method":"term.output","params":{"term_id":"t","data":"%d"}}`, i)
		o.queue(peek([]byte(msg))) <- []byte(msg)
	}
	reply := `{"id":7,"result":{"result":{"value":2}}}`
	o.queue(peek([]byte(reply))) <- []byte(reply)
	ev := `{"method":"cdp.event","params":{"tab_id":1}}`
	o.queue(peek([]byte(ev))) <- []byte(ev)
	exit := `{"method":"term.exit","params":{"term_id":"t","code":0}}`
	o.queue(peek([]byte(exit))) <- []byte(exit)
	o.close()

	var buf bytes.Buffer
	require.NoError(t, o.run(context.Background(), nativemsg.NewWriter(&buf)))
	got := frames(t, buf.Bytes())
	require.Len(t, got, 8)
	require.Equal(t, reply, got[0], "the CDP reply first")
	require.Equal(t, ev, got[1])
	for i := range 5 {
		require.Contains(t, got[2+i], fmt.Sprintf(`"data":"%d"`, i), "terminal output in order")
	}
	require.Equal(t, exit, got[7], "the exit after the output it follows")
}

// A request from the daemon with a term.* method is not the stream: only
// events are.
func TestOutboxOnlyTerminalEventsYield(t *testing.T) {
	require.True(t, lowPriority(head{Method: "term.output"}))
	require.False(t, lowPriority(head{ID: 3, Method: "term.output"}))
	require.False(t, lowPriority(head{ID: 3}))
	require.False(t, lowPriority(head{Method: "panel.event"}))
}

// A write failure ends run with the error.
func TestOutboxWriteFailure(t *testing.T) {
	o := newOutbox()
	o.hi <- []byte(`{"id":1,"result":{}}`)
	r, w := io.Pipe()
	r.Close()
	require.Error(t, o.run(context.Background(), nativemsg.NewWriter(w)))
}
