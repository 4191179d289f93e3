package capture

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimeline(t *testing.T) {
	s := newTestStore(t, nil)
	ingestFiles(t, s, "navigation.json", "fetch_404.json", "console.json", "dialog.json")
	p := s.Timeline(tabID, 0, 0)
	var kinds []string
	for i, e := range p.Entries {
		assert.Equal(t, uint64(i+1), e.Order, "orders are dense")
		kinds = append(kinds, e.Kind)
	}
	want := []string{KindNavigation, KindNetwork, KindNavigation, KindNavigation, KindNetwork,
		KindConsole, KindConsole, KindConsole, KindConsole, KindConsole, KindConsole, KindConsole,
		KindDialog, KindDialog}
	assert.Equal(t, want, kinds)
	assert.Equal(t, uint64(14), p.Next)
	assert.False(t, p.Truncated)
	require.NotNil(t, p.Entries[4].Request)
	assert.Equal(t, 404, p.Entries[4].Request.Status)

	// Paging by 5 walks the same sequence.
	var paged []string
	var cursor uint64
	for {
		p := s.Timeline(tabID, cursor, 5)
		for _, e := range p.Entries {
			paged = append(paged, e.Kind)
		}
		assert.Zero(t, p.Missed)
		cursor = p.Next
		if !p.Truncated {
			break
		}
	}
	assert.Equal(t, want, paged)
	assert.Empty(t, s.Timeline(tabID, cursor, 5).Entries, "nothing after the end")
}

func TestTimelineMissed(t *testing.T) {
	s := newTestStore(t, &Options{Console: Limits{MaxEntries: 3}})
	ingestFiles(t, s, "fetch_404.json") // order 1
	for i := range 10 {                 // orders 2..11; 2..8 evicted
		s.Ingest(tabID, "Runtime.consoleAPICalled", consoleParams("log", fmt.Sprint(i)))
	}
	p := s.Timeline(tabID, 0, 2)
	require.Len(t, p.Entries, 2)
	assert.Equal(t, KindNetwork, p.Entries[0].Kind)
	assert.Equal(t, uint64(9), p.Entries[1].Order)
	assert.Equal(t, uint64(9), p.Next)
	assert.True(t, p.Truncated)
	assert.Equal(t, uint64(7), p.Missed)

	p = s.Timeline(tabID, p.Next, 0)
	assert.Len(t, p.Entries, 2)
	assert.Equal(t, uint64(11), p.Next)
	assert.Zero(t, p.Missed)
	assert.False(t, p.Truncated)

	p = s.Timeline(tabID, 500, 0)
	assert.Len(t, p.Entries, 4, "a cursor the tab never issued restarts")
}

func TestPendingAndOpenBound(t *testing.T) {
	s := newTestStore(t, &Options{MaxOpenRequests: 3})
	send := func(id string) {
		s.Ingest(tabID, "Network.requestWillBeSent", fmt.Appendf(nil,
			`{"requestId":%q,"loaderId":"L","documentURL":"http://a/","request":{"url":"http://a/%s","method":"GET","headers":{}},"timestamp":10,"wallTime":1730000000,"initiator":{"type":"script"},"type":"Fetch"}`, id, id))
	}
	for i := 1; i <= 5; i++ {
		send(fmt.Sprint(i))
	}
	pending := s.Pending(tabID)
	require.Len(t, pending, 3)
	for i, r := range pending {
		assert.Equal(t, fmt.Sprint(i+3), r.ID, "oldest dropped first")
		assert.True(t, r.Pending)
	}
	st, _ := s.TabStats(tabID)
	assert.Equal(t, 3, st.OpenRequests)
	assert.Equal(t, uint64(2), st.OpenEvicted)

	s.Ingest(tabID, "Network.loadingFinished", []byte(`{"requestId":"1","timestamp":11,"encodedDataLength":5}`))
	s.Ingest(tabID, "Network.loadingFinished", []byte(`{"requestId":"4","timestamp":10.5,"encodedDataLength":5}`))
	got := s.Network(tabID, NetworkQuery{}).Entries
	require.Len(t, got, 1, "a dropped request's end is ignored")
	assert.Equal(t, "4", got[0].ID)
	assert.Equal(t, 500.0, got[0].DurationMs)
	assert.False(t, got[0].Pending)
	assert.Len(t, s.Pending(tabID), 2)
}

func TestIngestIgnoresAndCounts(t *testing.T) {
	s := newTestStore(t, nil)
	s.Ingest(1, "Page.lifecycleEvent", []byte(`{"name":"load"}`))
	s.Ingest(1, "Network.dataReceived", []byte(`not json`))
	assert.Empty(t, s.Tabs(), "uncaptured methods create no buffers")
	assert.Zero(t, s.Stats().Malformed)

	bad := []struct{ method, params string }{
		{"Runtime.consoleAPICalled", `{"type":"log"`},
		{"Runtime.consoleAPICalled", `{"type":"log","args":{}}`},
		{"Runtime.consoleAPICalled", `[]`},
		{"Runtime.exceptionThrown", `{"timestamp":1}`},
		{"Runtime.exceptionThrown", `{"timestamp":"1","exceptionDetails":{}}`},
		{"Network.requestWillBeSent", `{"requestId":"1"}`},
		{"Network.responseReceived", `{"requestId":"1","timestamp":1}`},
		{"Network.loadingFinished", `null x`},
		{"Network.webSocketFrameSent", `{"requestId":"1","timestamp":1,"response":{"opcode":2,"mask":false,"payloadData":"%%%"}}`},
		{"Page.frameNavigated", `{"type":"Navigation"}`},
		{"Page.javascriptDialogOpening", `{"message":7}`},
	}
	for _, b := range bad {
		s.Ingest(2, b.method, []byte(b.params))
	}
	st := s.Stats()
	assert.Equal(t, uint64(len(bad)), st.Malformed)
	for k, ks := range st.Kinds {
		assert.Zero(t, ks.Entries, "%s entries", k)
	}
}

func TestForgetAndMaxTabs(t *testing.T) {
	s := newTestStore(t, &Options{MaxTabs: 2})
	log := consoleParams("log", "x")
	s.Ingest(1, "Runtime.consoleAPICalled", log)
	s.Ingest(2, "Runtime.consoleAPICalled", log)
	s.Ingest(1, "Runtime.consoleAPICalled", log) // tab 2 is now the least recent
	s.Ingest(3, "Runtime.consoleAPICalled", log)
	assert.Equal(t, []int{1, 3}, s.Tabs())
	assert.Equal(t, uint64(1), s.Stats().TabsEvicted)
	assert.Equal(t, 3, s.Stats().Kinds[KindConsole].Entries)

	s.Forget(1)
	assert.Equal(t, []int{3}, s.Tabs())
	_, ok := s.TabStats(1)
	assert.False(t, ok)
	assert.Empty(t, s.Logs(1, LogQuery{}).Entries)
	assert.Nil(t, s.Errors(1))
	assert.Nil(t, s.Pending(1))
	assert.Nil(t, s.OpenDialogs(1))
	assert.Empty(t, s.Timeline(1, 0, 0).Entries)
}

func TestOptions(t *testing.T) {
	s, err := NewStore(nil)
	require.NoError(t, err)
	o := s.opts
	assert.Equal(t, Limits{5000, 8 << 20}, o.Console)
	assert.Equal(t, Limits{1000, 8 << 20}, o.Network)
	assert.Equal(t, 1000, o.MaxOpenRequests)
	assert.Equal(t, 32, o.MaxTabs)
	assert.NotNil(t, o.Now)

	in := &Options{Console: Limits{MaxEntries: 7}}
	s, err = NewStore(in)
	require.NoError(t, err)
	assert.Equal(t, Limits{7, 8 << 20}, s.opts.Console)
	assert.Nil(t, in.Now, "the caller's struct is not modified")

	for _, bad := range []Options{
		{Console: Limits{MaxEntries: -1}},
		{Network: Limits{MaxBytes: -1}},
		{MaxTabs: -1},
		{MaxTextBytes: 1 << 20, Console: Limits{MaxBytes: 1 << 10}},
		{MaxPayloadBytes: 1 << 20, WebSockets: Limits{MaxBytes: 1 << 10}},
	} {
		_, err := NewStore(&bad)
		assert.Error(t, err, "%+v", bad)
	}
}

func TestTruncation(t *testing.T) {
	s := newTestStore(t, &Options{MaxTextBytes: 32, MaxURLBytes: 24, MaxPayloadBytes: 8})
	long := "é0123456789abcdefghijklmnopqrstuvwxyz" // é is 2 bytes, … is 3
	s.Ingest(tabID, "Runtime.consoleAPICalled", consoleParams("error", long))
	e := s.Logs(tabID, LogQuery{}).Entries[0]
	assert.True(t, e.Truncated)
	assert.LessOrEqual(t, len(e.Text), 32)
	assert.Equal(t, "é0123456789abcdefghijklmnopq…", e.Text)
	assert.Equal(t, "http://127.0.0.1:8765…", e.URL)

	s.Ingest(tabID, "Network.webSocketFrameReceived", []byte(`{"requestId":"w","timestamp":1,"response":{"opcode":1,"mask":false,"payloadData":"hello websocket"}}`))
	s.Ingest(tabID, "Network.webSocketFrameReceived", []byte(`{"requestId":"w","timestamp":1,"response":{"opcode":2,"mask":false,"payloadData":"AAECAwQFBgcICQ=="}}`))
	ws := s.WebSockets(tabID, WebSocketQuery{}).Entries
	require.Len(t, ws, 2)
	assert.Equal(t, WebSocketEvent{Seq: 1, Order: 2, Time: fixedNow, SocketID: "w", Event: "frame", Dir: "received",
		Opcode: 1, Payload: "hello…", PayloadLen: 15, Truncated: true}, ws[0])
	assert.Equal(t, "AAECAwQF", ws[1].Payload, "6 of 10 bytes, whose base64 fits in 8")
	assert.True(t, ws[1].Truncated)
	assert.Equal(t, 10, ws[1].PayloadLen)
}

func TestConcurrentIngestAndQuery(t *testing.T) {
	s := newTestStore(t, &Options{Console: Limits{MaxEntries: 50}, MaxTabs: 3})
	files := []string{"navigation.json", "console.json", "exception.json", "fetch_404.json", "xhr.json",
		"redirect.json", "websocket.json", "dialog.json"}
	var events []event
	for _, f := range files {
		events = append(events, loadEvents(t, f)...)
	}
	const rounds = 50
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for range rounds {
				for _, e := range events {
					s.Ingest(w%2, e.Method, e.Params) // two writers per tab
				}
			}
		})
	}
	var readers sync.WaitGroup
	readers.Go(func() {
		var cursor uint64
		for {
			select {
			case <-done:
				return
			default:
			}
			p := s.Timeline(0, cursor, 20)
			for i := 1; i < len(p.Entries); i++ {
				if p.Entries[i].Order <= p.Entries[i-1].Order {
					t.Errorf("timeline out of order")
				}
			}
			cursor = p.Next
			s.Logs(1, LogQuery{Level: "error"})
			s.Errors(0)
			s.Pending(1)
			s.OpenDialogs(0)
			s.Stats()
		}
	})
	wg.Wait()
	close(done)
	readers.Wait()

	st := s.Stats()
	assert.Equal(t, 2, st.Tabs)
	cs := st.Kinds[KindConsole]
	assert.Equal(t, 100, cs.Entries, "50 per tab")
	assert.Equal(t, uint64(2*2*rounds*7-100), cs.Evicted, "7 console events per round, 2 writers, 2 tabs")
	assert.Zero(t, st.Malformed)
}
