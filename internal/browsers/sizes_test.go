package browsers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// visit connects a browser to h and disconnects it.
func visit(t *testing.T, h *Hub, id string) {
	t.Helper()
	daemon, ext := newPipe()
	ready := make(chan struct{})
	l := extlink.New(daemon, extlink.Options{OnReady: func(l *extlink.Link) { h.Add(l); close(ready) }})
	done := make(chan struct{})
	go func() { defer close(done); l.Serve(context.Background()) }()
	p, _ := json.Marshal(protocol.Hello{Protocol: protocol.Version, BrowserID: id})
	b, _ := json.Marshal(protocol.Message{ID: 1, Method: protocol.MethodHello, Params: p})
	require.NoError(t, ext.Write(t.Context(), b))
	<-ready
	daemon.Close("over")
	<-done
	h.Remove(l)
}

// TestHubHoldsItsCaps: more browsers than maxRecords come and go (an away
// browser gives its slot, and its record, to the next), and more tabs than
// maxRevoked are revoked; the hub remembers at most its caps.
func TestHubHoldsItsCaps(t *testing.T) {
	h := New(Config{})
	for i := range maxRecords + 6 {
		visit(t, h, fmt.Sprintf("%08d-browser", i))
	}
	for i := range maxRevoked + 100 {
		h.Revoke(i+1, errors.New("gone"))
	}
	for _, st := range h.Sizes() {
		require.False(t, st.Over(), "%s holds %d, cap %d", st.Name, st.Len, st.Cap)
		if st.Name == "browsers.revoked_tabs" {
			require.Equal(t, st.Cap, st.Len, "%s did not fill", st.Name)
		}
	}
}
