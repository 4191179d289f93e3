package capture

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAddActionFillsAndCuts(t *testing.T) {
	b := newBrowse(t, &Options{MaxTextBytes: 16})
	b.navigate("L1", "/form")
	a, ok := b.s.AddAction(tabID, Action{Type: "type", Source: "user", Selector: strings.Repeat("s", 2000),
		Target: `textbox "Name"`, Value: "a value longer than sixteen bytes"})
	require.True(t, ok)
	assert.Equal(t, fixedNow, a.Time)
	assert.Equal(t, "http://127.0.0.1:8765/form", a.URL, "the tab's page")
	assert.Len(t, a.Selector, maxSelector)
	assert.Len(t, a.Value, 16)
	assert.True(t, a.Truncated)
	assert.Equal(t, uint64(1), a.Seq)
	st, _ := b.s.TabStats(tabID)
	assert.Equal(t, 1, st.Kinds[KindAction].Entries)
}

func TestAddActionRedactedOrRefused(t *testing.T) {
	s := newTestStore(t, &Options{Redactor: func(kind string, v any) (any, error) {
		a := v.(Action)
		if a.Value == "refuse" {
			return nil, assert.AnError
		}
		a.Value = strings.ReplaceAll(a.Value, "secret", "[REDACTED:x]")
		return a, nil
	}})
	a, ok := s.AddAction(tabID, Action{Type: "type", Value: "my secret"})
	require.True(t, ok)
	assert.Equal(t, "my [REDACTED:x]", a.Value)
	_, ok = s.AddAction(tabID, Action{Type: "type", Value: "refuse"})
	assert.False(t, ok, "fail closed")
	st, _ := s.TabStats(tabID)
	assert.Equal(t, KindStats{Entries: 1, Bytes: st.Kinds[KindAction].Bytes, Blocked: 1}, st.Kinds[KindAction])
}

// TestActivity merges actions and navigations in order, leaves load
// milestones out, and pages without skipping an entry even when a window
// is full of milestones.
func TestActivity(t *testing.T) {
	b := newBrowse(t, nil)
	b.navigate("L1", "/a")
	b.ingest("Page.domContentEventFired", map[string]any{"timestamp": b.ts})
	b.ingest("Page.loadEventFired", map[string]any{"timestamp": b.ts})
	b.s.AddAction(tabID, Action{Type: "click", Source: "user", Target: `link "B"`})
	b.ingest("Page.navigatedWithinDocument", map[string]any{"frameId": mainFrameID, "url": "http://127.0.0.1:8765/a#step2", "navigationType": "fragment"})
	b.ingest("Page.navigatedWithinDocument", map[string]any{"frameId": "CHILD", "url": "http://x/frame#y", "navigationType": "fragment"})
	b.s.AddAction(tabID, Action{Type: "type", Source: "agent", Value: "x"})
	b.navigate("L2", "/b")
	for range 6 {
		b.ingest("Page.loadEventFired", map[string]any{"timestamp": b.ts})
	}
	b.s.AddAction(tabID, Action{Type: "key_press", Source: "user", Keys: "Enter"})

	describe := func(es []TimelineEntry) []string {
		var out []string
		for _, e := range es {
			if e.Action != nil {
				out = append(out, e.Action.Source+" "+e.Action.Type)
			} else {
				out = append(out, e.Navigation.Event+" "+strings.TrimPrefix(e.Navigation.URL, "http://127.0.0.1:8765"))
			}
		}
		return out
	}
	want := []string{"navigated /a", "user click", "same_document /a#step2", "agent type", "navigated /b", "user key_press"}
	p := b.s.Activity(tabID, 0, 0)
	assert.Equal(t, want, describe(p.Entries))
	assert.False(t, p.Truncated)

	var paged []TimelineEntry
	var cursor uint64
	for range 20 {
		p := b.s.Activity(tabID, cursor, 2)
		paged = append(paged, p.Entries...)
		cursor = p.Next
		if !p.Truncated {
			break
		}
	}
	assert.Equal(t, want, describe(paged), "paging by 2 walks the same entries")
	assert.Empty(t, b.s.Activity(tabID, cursor, 2).Entries)
	tl := b.s.Timeline(tabID, 0, 0)
	assert.Equal(t, KindAction, tl.Entries[4].Kind, "the timeline has actions too")
}

// TestClear empties named buffers: counts by kind, error groups by the
// kind that made them, cursors stay valid and cleared entries are not
// reported missed by the per-kind queries or the timeline.
func TestClear(t *testing.T) {
	s := newTestStore(t, nil)
	ingestFiles(t, s, "fetch_404.json", "console.json")
	before := s.Logs(tabID, LogQuery{})
	require.NotEmpty(t, before.Entries)
	s.AddAction(tabID, Action{Type: "click"})
	groups := len(s.Errors(tabID))
	require.Positive(t, groups)

	got := s.Clear(tabID, Buffers{Network: true})
	assert.Equal(t, map[string]int{KindNetwork: 1}, got)
	assert.Empty(t, s.Network(tabID, NetworkQuery{}).Entries)
	assert.Len(t, s.Logs(tabID, LogQuery{}).Entries, len(before.Entries), "the console is kept")

	got = s.Clear(tabID, Buffers{Console: true})
	assert.Equal(t, len(before.Entries), got[KindConsole])
	assert.Equal(t, groups, got[KindErrorGroups], "the console's error groups go with it")
	assert.Empty(t, s.Errors(tabID))

	s.Ingest(tabID, "Runtime.consoleAPICalled", consoleParams("log", "after"))
	p := s.Logs(tabID, LogQuery{After: before.Next})
	require.Len(t, p.Entries, 1)
	assert.Zero(t, p.Missed, "cleared entries are not missed")
	assert.Greater(t, p.Entries[0].Seq, before.Next, "sequence numbers go on")

	tl := s.Timeline(tabID, 0, 0)
	assert.Len(t, tl.Entries, 2, "the action and the new message")
	assert.Zero(t, tl.Missed)

	got = s.Clear(tabID, AllBuffers())
	assert.Equal(t, map[string]int{KindConsole: 1, KindAction: 1}, got)
	assert.Empty(t, s.Timeline(tabID, 0, 0).Entries)
	assert.Empty(t, s.Clear(99, AllBuffers()), "a tab without buffers")
}

func TestClearKeepsEvictionsMissed(t *testing.T) {
	s := newTestStore(t, &Options{Console: Limits{MaxEntries: 2}})
	for i := range 3 {
		s.Ingest(tabID, "Runtime.consoleAPICalled", consoleParams("log", string(rune('a'+i))))
	}
	s.Clear(tabID, Buffers{Console: true}) // seq 1 was evicted, 2 and 3 cleared
	for i := range 4 {
		s.Ingest(tabID, "Runtime.consoleAPICalled", consoleParams("log", string(rune('d'+i))))
	}
	p := s.Logs(tabID, LogQuery{})
	assert.Len(t, p.Entries, 2)
	assert.Equal(t, uint64(2), p.Missed, "seq 4 and 5 were evicted after the clear")
}
