package capture

import (
	"sync"
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

// TestStoreHoldsItsByteCap: tabs that each stay under their own caps
// together pass MaxBytes; the store keeps at most MaxBytes, the least
// recently active tab giving up its oldest entries first, and its count of
// bytes always equals what its buffers hold (no drift as tabs come and go).
func TestStoreHoldsItsByteCap(t *testing.T) {
	s := newTestStore(t, &Options{MaxBytes: 200 << 10})
	var buf []byte
	for i := range 4000 {
		tab := 1 + i%3 // three tabs, then the fourth alone
		if i >= 1500 {
			tab = 4
		}
		buf = floodParams(buf[:0], i)
		s.Ingest(tab, "Runtime.consoleAPICalled", buf)
		require.LessOrEqual(t, s.bytes.Load(), int64(200<<10), "after %d entries", i+1)
	}
	st := s.Stats()
	require.Equal(t, st.Kinds[KindConsole].Bytes, s.bytes.Load(), "the count is what the buffers hold")
	oldest, _ := s.TabStats(1)
	newest, _ := s.TabStats(4)
	require.Zero(t, oldest.Kinds[KindConsole].Entries, "the least recently active tabs gave up theirs first")
	require.Positive(t, newest.Kinds[KindConsole].Entries)
	require.Positive(t, s.trimmed.Load())
	for _, z := range s.Sizes() {
		require.False(t, z.Over(), "%s holds %d (%d bytes), cap %d (%d bytes)", z.Name, z.Len, z.Bytes, z.Cap, z.MaxBytes)
	}
	// A reader of the least active tab is told what it missed.
	require.Positive(t, s.Logs(1, LogQuery{}).Missed)
	for tab := 1; tab <= 4; tab++ {
		s.Forget(tab)
	}
	require.Zero(t, s.bytes.Load(), "forgotten tabs leave nothing counted")
}

// TestStoreByteCountUnderConcurrency: tabs ingesting, cleared and
// forgotten at once leave the count equal to what is held.
func TestStoreByteCountUnderConcurrency(t *testing.T) {
	s := newTestStore(t, &Options{MaxBytes: 64 << 10, MaxTabs: 4})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			var buf []byte
			for i := range 2000 {
				tab := 1 + (w*7+i)%6
				buf = floodParams(buf[:0], i)
				s.Ingest(tab, "Runtime.consoleAPICalled", buf)
				switch i % 97 {
				case 0:
					s.Forget(tab)
				case 1:
					s.Clear(tab, AllBuffers())
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, s.Stats().Kinds[KindConsole].Bytes, s.bytes.Load())
	require.LessOrEqual(t, s.bytes.Load(), int64(64<<10))
}
