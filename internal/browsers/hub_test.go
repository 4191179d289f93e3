package browsers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// pipe is an in-memory message connection.
type pipe struct {
	in, out chan []byte
	closed  chan struct{}
	once    *sync.Once
}

func newPipe() (*pipe, *pipe) {
	a, b, done, once := make(chan []byte, 64), make(chan []byte, 64), make(chan struct{}), &sync.Once{}
	return &pipe{in: b, out: a, closed: done, once: once}, &pipe{in: a, out: b, closed: done, once: once}
}

func (p *pipe) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-p.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipe) Write(ctx context.Context, b []byte) error {
	select {
	case p.out <- b:
		return nil
	case <-p.closed:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipe) Close(string) error { p.once.Do(func() { close(p.closed) }); return nil }

// fakeBrowser is an extension: it says hello as browser id, then answers
// every request with answer (nil: never answers).
type fakeBrowser struct {
	link *extlink.Link
	got  chan protocol.Message // every request it received
}

func connect(t *testing.T, h *Hub, hello protocol.Hello, answer func(m protocol.Message) any) (*fakeBrowser, Ready) {
	t.Helper()
	daemon, ext := newPipe()
	ready := make(chan Ready, 1)
	l := extlink.New(daemon, extlink.Options{OnReady: func(l *extlink.Link) { ready <- h.Add(l) }})
	done := make(chan struct{})
	go func() { defer close(done); l.Serve(context.Background()) }()
	t.Cleanup(func() { daemon.Close("over"); <-done; h.Remove(l) })
	hello.Protocol = protocol.Version
	p, _ := json.Marshal(hello)
	b, _ := json.Marshal(protocol.Message{ID: 1, Method: protocol.MethodHello, Params: p})
	require.NoError(t, ext.Write(t.Context(), b))
	f := &fakeBrowser{link: l, got: make(chan protocol.Message, 64)}
	go func() {
		for {
			raw, err := ext.Read(context.Background())
			if err != nil {
				return
			}
			var m protocol.Message
			json.Unmarshal(raw, &m)
			if !m.IsRequest() {
				continue
			}
			f.got <- m
			if answer == nil {
				continue
			}
			res, _ := json.Marshal(answer(m))
			out, _ := json.Marshal(protocol.Message{ID: m.ID, Result: res})
			ext.Write(context.Background(), out)
		}
	}()
	select {
	case r := <-ready:
		return f, r
	case <-time.After(10 * time.Second):
		t.Fatal("no hello")
	}
	return nil, Ready{}
}

func echoTab(m protocol.Message) any {
	var p map[string]any
	json.Unmarshal(m.Params, &p)
	return map[string]any{"method": m.Method, "params": p}
}

func TestGlobalIDs(t *testing.T) {
	for _, tc := range []struct {
		slot  Slot
		local int
	}{{0, 1}, {0, 2147483647}, {1, 1}, {3, 77}} {
		id := TabID(tc.slot, tc.local)
		s, l := Split(id)
		require.Equal(t, tc.slot, s)
		require.Equal(t, tc.local, l)
	}
	require.Equal(t, 7, TabID(0, 7), "the first browser's ids are Chrome's")
	out, err := Globalize(2, json.RawMessage(`{"tab_id":7,"replaced_tab_id":9,"url":"x","tab_ids":[1]}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"tab_id":20000000007,"replaced_tab_id":20000000009,"url":"x","tab_ids":[1]}`, string(out))
	_, err = Globalize(1, json.RawMessage(`{"tab_id":"7"}`))
	require.Error(t, err, "a tab id that is not a number")
}

// Two browsers: each tab's calls go to the browser holding it, with
// Chrome's id; a call naming no tab goes to the default browser; slots
// are kept in the table, so a daemon restart gives the same ids.
func TestRoutingBySlotAndTable(t *testing.T) {
	dir := t.TempDir()
	h := New(Config{Dir: dir})
	a, ra := connect(t, h, protocol.Hello{BrowserID: "aaaaaaaa-1111", RunID: "run-a-000000000001", Browser: "Chromium/156", Profile: "Work"}, echoTab)
	b, rb := connect(t, h, protocol.Hello{BrowserID: "bbbbbbbb-2222", RunID: "run-b-000000000001", Browser: "Chromium/156", Profile: "Home"}, echoTab)
	require.Equal(t, Slot(0), ra.Slot)
	require.Equal(t, Slot(1), rb.Slot)

	raw, err := h.Call(t.Context(), "tabs.get", map[string]int{"tab_id": TabID(1, 42)})
	require.NoError(t, err)
	require.JSONEq(t, `{"method":"tabs.get","params":{"tab_id":42}}`, string(raw))
	require.Equal(t, "tabs.get", (<-b.got).Method)
	raw, err = h.Call(t.Context(), "tabs.group", map[string]any{"tab_ids": []int{TabID(1, 4), TabID(1, 5)}})
	require.NoError(t, err)
	require.JSONEq(t, `{"method":"tabs.group","params":{"tab_ids":[4,5]}}`, string(raw))
	<-b.got
	_, err = h.Call(t.Context(), "tabs.group", map[string]any{"tab_ids": []int{4, TabID(1, 5)}})
	require.ErrorContains(t, err, "different browsers")
	_, err = h.Call(t.Context(), "cdp.send", map[string]any{"tab_id": 7, "method": "Page.enable"})
	require.NoError(t, err)
	require.Equal(t, "cdp.send", (<-a.got).Method)
	require.Empty(t, a.got, "nothing else reached browser a")

	h.Focused(a.link)
	def, err := h.Default()
	require.NoError(t, err)
	require.Equal(t, Slot(0), def, "the browser focused last")
	raw, err = h.CallIn(t.Context(), 1, "tabs.query", struct{}{})
	require.NoError(t, err)
	require.Contains(t, string(raw), "tabs.query")

	slot, err := h.Resolve("home")
	require.NoError(t, err)
	require.Equal(t, Slot(1), slot)
	slot, err = h.Resolve("aaaaaaaa")
	require.NoError(t, err)
	require.Equal(t, Slot(0), slot)
	_, err = h.Resolve("chromium")
	var te *tools.Error
	require.ErrorAs(t, err, &te)
	require.Equal(t, CodeAmbiguousBrowser, te.Code)
	_, err = h.Resolve("edge")
	require.ErrorAs(t, err, &te)
	require.Equal(t, CodeUnknownBrowser, te.Code)
	list := h.List()
	require.Len(t, list, 2)
	require.Equal(t, Info{ID: "aaaaaaaa", Name: "Chromium/156", Profile: "Work", State: StateConnected, Default: true, Slot: 0}, list[0])

	// A new daemon reads the table: b keeps slot 1 even when it connects
	// first; the same run is no restart, another run is.
	h2 := New(Config{Dir: dir})
	_, rb2 := connect(t, h2, protocol.Hello{BrowserID: "bbbbbbbb-2222", RunID: "run-b-000000000001"}, echoTab)
	require.Equal(t, Slot(1), rb2.Slot)
	require.False(t, rb2.Restarted)
	h3 := New(Config{Dir: dir})
	_, ra3 := connect(t, h3, protocol.Hello{BrowserID: "aaaaaaaa-1111", RunID: "run-a-000000000002"}, echoTab)
	require.Equal(t, Slot(0), ra3.Slot)
	require.True(t, ra3.Restarted, "another run of the browser")
}

// A slot goes to a new browser only when nothing refers to it.
func TestSlotsHeldWhileInUse(t *testing.T) {
	inUse := map[Slot]bool{0: true}
	h := New(Config{InUse: func(s Slot) bool { return inUse[s] }})
	_, r := connect(t, h, protocol.Hello{BrowserID: "cccccccc-3333"}, echoTab)
	require.Equal(t, Slot(1), r.Slot, "slot 0 is referred to by a session's tabs")
	err := func() error { _, err := h.Call(t.Context(), "tabs.get", map[string]int{"tab_id": 5}); return err }()
	var pe *protocol.Error
	require.ErrorAs(t, err, &pe)
	require.NotEqual(t, "", pe.Code)
}

// A browser that answers nothing is noticed after one call times out: its
// later calls fail fast, the other browser's calls go on, and the default
// moves to the browser that answers.
func TestAnUnresponsiveBrowserDoesNotStallOthers(t *testing.T) {
	h := New(Config{ProbeTimeout: 200 * time.Millisecond})
	good, _ := connect(t, h, protocol.Hello{BrowserID: "dddddddd-4444"}, echoTab)
	silent, rs := connect(t, h, protocol.Hello{BrowserID: "eeeeeeee-5555"}, nil) // connected last: the default at first
	def, _ := h.Default()
	require.Equal(t, rs.Slot, def)

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	_, err := h.Call(ctx, "tabs.get", map[string]int{"tab_id": TabID(rs.Slot, 3)})
	cancel()
	require.Error(t, err)
	<-silent.got
	start := time.Now()
	_, err = h.Call(t.Context(), "tabs.get", map[string]int{"tab_id": TabID(rs.Slot, 3)})
	var pe *protocol.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, CodeBrowserUnresponsive, pe.Code)
	require.True(t, pe.Retryable)
	require.Less(t, time.Since(start), 10*time.Second, "bounded by the probe, not the call's budget")

	_, err = h.Call(t.Context(), "tabs.get", map[string]int{"tab_id": 3})
	require.NoError(t, err, "the other browser answers")
	<-good.got
	def, _ = h.Default()
	require.Equal(t, Slot(0), def, "the default skips a browser that does not answer")
	require.Equal(t, StateUnresponsive, h.List()[1].State)
}

// Revoke ends the calls waiting on a tab with the reason.
func TestRevokeEndsCallsInFlight(t *testing.T) {
	h := New(Config{})
	f, _ := connect(t, h, protocol.Hello{BrowserID: "ffffffff-6666"}, nil)
	why := &tools.Error{Code: "tab_not_shared", Message: "the user took it back"}
	errc := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), "cdp.send", map[string]any{"tab_id": 9, "method": "Runtime.evaluate"})
		errc <- err
	}()
	<-f.got // in flight
	h.Revoke(9, why)
	select {
	case err := <-errc:
		require.True(t, errors.Is(err, why), "got %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end")
	}
	// A call that outlived the revocation cannot reach the page again
	// (it would attach the debugger to the user's tab); tab methods can.
	_, err := h.Call(t.Context(), "cdp.send", map[string]any{"tab_id": 9, "method": "Runtime.evaluate"})
	require.True(t, errors.Is(err, why), "got %v", err)
	require.Empty(t, f.got, "nothing reached the browser")
	go h.Call(context.Background(), "cdp.detach", map[string]any{"tab_id": 9})
	require.Equal(t, "cdp.detach", (<-f.got).Method)
	h.Allow(9) // a session holds it again
	go h.Call(context.Background(), "cdp.send", map[string]any{"tab_id": 9, "method": "Page.enable"})
	require.Equal(t, "cdp.send", (<-f.got).Method)
}

// An extension from before browser ids gets a slot for its link only.
func TestLinkWithoutBrowserID(t *testing.T) {
	dir := t.TempDir()
	h := New(Config{Dir: dir})
	_, r := connect(t, h, protocol.Hello{Browser: "Chromium/120"}, echoTab)
	require.Equal(t, Slot(0), r.Slot)
	recs, err := loadTable(dir + "/" + FileName)
	require.NoError(t, err)
	require.Empty(t, recs, "nothing to keep for a link without a browser id")
}
