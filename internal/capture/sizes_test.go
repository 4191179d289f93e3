package capture

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryBufferHoldsItsCap fills every buffer of more tabs than MaxTabs
// past its cap (the samples of every kind, over and over): no store of
// the report passes its bound, and the buffers that filled sit at it.
// (Requests in flight past MaxOpenRequests: TestPendingAndOpenBound.)
func TestEveryBufferHoldsItsCap(t *testing.T) {
	lim := Limits{MaxEntries: 5, MaxBytes: 1 << 20}
	s := newTestStore(t, &Options{Console: lim, Exceptions: lim, Network: lim, WebSockets: lim, Dialogs: lim,
		Navigations: lim, Actions: lim, MaxTabs: 3, MaxOpenRequests: 2, MaxErrorGroups: 2})
	files := []string{"console.json", "dialog.json", "exception.json", "fetch_404.json", "fetch_failed.json",
		"navigation.json", "redirect.json", "websocket.json", "xhr.json"}
	for tab := 1; tab <= 5; tab++ {
		for range 10 {
			for _, f := range files {
				for _, e := range loadEvents(t, f) {
					s.Ingest(tab, e.Method, e.Params)
				}
			}
			s.AddAction(tab, Action{Type: "click"})
		}
	}
	full := map[string]bool{}
	for _, st := range s.Sizes() {
		require.False(t, st.Over(), "%s holds %d (%d bytes), cap %d (%d bytes)", st.Name, st.Len, st.Bytes, st.Cap, st.MaxBytes)
		full[st.Name] = st.Len == st.Cap
	}
	for _, name := range []string{"capture.tabs", "capture.console", "capture.exception", "capture.network", "capture.websocket",
		"capture.dialog", "capture.navigation", "capture.action", "capture.error_groups"} {
		require.True(t, full[name], "%s did not fill: the test no longer reaches its cap", name)
	}
}
