package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

func consoleEvent(ts float64, text string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"log","args":[{"type":"string","value":%q}],"executionContextId":1,"timestamp":%v}`, text, ts))
}

// feedTest is a Feed listening to a target set whose held tabs are owned,
// as the tab manager's does.
type feedTest struct {
	*Feed
	set *target.Set
}

// noLink is a link to no browser.
type noLink struct{}

func (noLink) Call(context.Context, string, any) (json.RawMessage, error) {
	return nil, errors.New("no browser in unit tests")
}

func newTestFeed(t *testing.T, owned map[int]bool) (feedTest, *capture.Store) {
	t.Helper()
	store, err := capture.NewStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := NewFeed(ctx, FeedConfig{Store: store})
	set := target.NewSet(ctx, target.Config{Caller: noLink{}, Owner: func(tab int) (string, bool) { return "s1", owned[tab] }})
	set.Listen(f)
	t.Cleanup(func() { cancel(); f.Wait() })
	return feedTest{f, set}, store
}

// Event and Attached arrive as the link delivers them.
func (f feedTest) Event(tab int, session, method string, params json.RawMessage) {
	f.set.Event(tab, session, method, params)
}
func (f feedTest) Attached(tab int)         { f.set.Attached(tab) }
func (f feedTest) Children(tab int) []Child { return f.set.Get(tab).Children() }

func logTexts(s *capture.Store, tab int) []string {
	var out []string
	for _, e := range s.Logs(tab, capture.LogQuery{Limit: capture.MaxLimit}).Entries {
		out = append(out, e.Text)
	}
	return out
}

// Chrome replays the console messages it keeps when Runtime is enabled
// again on a re-attached tab; the feed drops them, keeps new ones.
func TestFeedDropsReplayAfterReattach(t *testing.T) {
	f, store := newTestFeed(t, map[int]bool{1: true})
	f.Event(1, "", "Runtime.consoleAPICalled", consoleEvent(1000, "a"))
	f.Event(1, "", "Runtime.consoleAPICalled", consoleEvent(1001, "b"))
	f.Attached(1)
	f.Event(1, "", "Runtime.consoleAPICalled", consoleEvent(1000, "a")) // replayed
	f.Event(1, "", "Runtime.consoleAPICalled", consoleEvent(1001, "b")) // replayed
	f.Event(1, "", "Runtime.consoleAPICalled", consoleEvent(1002, "c"))
	f.Event(1, "W", "Runtime.consoleAPICalled", consoleEvent(1001, "w")) // a worker's replay
	if got, want := fmt.Sprint(logTexts(store, 1)), "[a b c]"; got != want {
		t.Fatalf("logs = %s, want %s", got, want)
	}
}

func TestFeedCapturesOwnedTabsOnly(t *testing.T) {
	f, store := newTestFeed(t, map[int]bool{1: true})
	f.Event(2, "", "Runtime.consoleAPICalled", consoleEvent(1, "user's tab"))
	f.Event(1, "S1", "Runtime.consoleAPICalled", consoleEvent(2, "worker"))
	f.Event(1, "S1", "Page.loadEventFired", json.RawMessage(`{"timestamp":3}`))
	if got := logTexts(store, 2); len(got) != 0 {
		t.Fatalf("an unowned tab was captured: %v", got)
	}
	if got := logTexts(store, 1); fmt.Sprint(got) != "[worker]" {
		t.Fatalf("child session console = %v", got)
	}
	if n := store.Navigations(1, 0, 10).Entries; len(n) != 0 {
		t.Fatalf("a child frame's load became the tab's: %v", n)
	}
}

func TestFeedTracksChildSessions(t *testing.T) {
	f, store := newTestFeed(t, map[int]bool{1: true})
	f.Event(1, "", "Target.attachedToTarget", json.RawMessage(`{"sessionId":"S1","targetInfo":{"type":"worker","targetId":"W1"}}`))
	f.Event(1, "", "Target.attachedToTarget", json.RawMessage(`{"sessionId":"S2","targetInfo":{"type":"iframe","targetId":"F2"}}`))
	if got := f.Children(1); len(got) != 2 || got[0].SessionID != "S2" {
		t.Fatalf("children = %v, want S2 then S1", got)
	}
	if sid, ok := f.set.Get(1).ChildOf("F2"); !ok || sid != "S2" {
		t.Fatalf("iframe F2's session = %q %v", sid, ok)
	}
	f.Event(1, "", "Target.detachedFromTarget", json.RawMessage(`{"sessionId":"S1"}`))
	if got := f.Children(1); len(got) != 1 || got[0].SessionID != "S2" {
		t.Fatalf("children = %v", got)
	}
	f.Attached(1)
	if got := f.Children(1); len(got) != 0 {
		t.Fatalf("children survived a re-attach: %v", got)
	}
	// A closed target takes its buffers with it.
	f.Event(1, "", "Runtime.consoleAPICalled", consoleEvent(5000, "kept"))
	if got := logTexts(store, 1); fmt.Sprint(got) != "[kept]" {
		t.Fatalf("logs = %v", got)
	}
	f.set.Close(1)
	if got := logTexts(store, 1); len(got) != 0 {
		t.Fatalf("a closed target's buffers stayed: %v", got)
	}
}

// A tab the user shared captures from the moment it was shared: what it
// logged before (Chrome replays it) is never read.
func TestFeedStartsWhereTheTabWasShared(t *testing.T) {
	f, store := newTestFeed(t, map[int]bool{1: true})
	f.set.Get(1).StartCapture(time.UnixMilli(2000))
	f.Event(1, "", "Runtime.consoleAPICalled", consoleEvent(1500, "before"))
	f.Event(1, "", "Runtime.consoleAPICalled", consoleEvent(2500, "after"))
	if got := fmt.Sprint(logTexts(store, 1)); got != "[after]" {
		t.Fatalf("logs = %s, want [after]", got)
	}
}

func TestCollectFiltersAcrossPages(t *testing.T) {
	f, store := newTestFeed(t, map[int]bool{1: true})
	for i := range 30 {
		typ := "log"
		if i%3 == 0 {
			typ = "error"
		}
		f.Event(1, "", "Runtime.consoleAPICalled", json.RawMessage(fmt.Sprintf(`{"type":%q,"args":[{"type":"number","value":%d,"description":"%d"}],"timestamp":%d}`, typ, i, i, 1000+i)))
	}
	fetch := func(after uint64, limit int) capture.Page[capture.ConsoleEntry] {
		return store.Logs(1, capture.LogQuery{After: after, Limit: 4})
	}
	keep := func(e capture.ConsoleEntry) bool { return e.Level == "error" }
	seq := func(e capture.ConsoleEntry) uint64 { return e.Seq }
	p := collect(fetch, keep, seq, 0, 3)
	if len(p.Entries) != 3 || !p.Truncated || p.Next < p.Entries[2].Seq {
		t.Fatalf("first page: %d entries, truncated %v, next %d", len(p.Entries), p.Truncated, p.Next)
	}
	rest := collect(fetch, keep, seq, p.Next, 100)
	if len(rest.Entries) != 7 || rest.Truncated {
		t.Fatalf("rest: %d entries, truncated %v", len(rest.Entries), rest.Truncated)
	}
}

func TestNetFilterStatus(t *testing.T) {
	for _, tc := range []struct {
		status   string
		min, max int
		failed   bool
		bad      bool
	}{
		{"404", 404, 404, false, false},
		{"5xx", 500, 599, false, false},
		{"failed", 0, 0, true, false},
		{"teapot", 0, 0, false, true},
		{"99", 0, 0, false, true},
	} {
		q, err := statusFilter(tc.status)
		if (err != nil) != tc.bad {
			t.Fatalf("status %q: err %v", tc.status, err)
		}
		if !tc.bad && (q.StatusMin != tc.min || q.StatusMax != tc.max || q.FailedOnly != tc.failed) {
			t.Fatalf("status %q: got %+v", tc.status, q)
		}
	}
	if resourceType("xhr") != "XHR" || resourceType("Fetch") != "Fetch" || resourceType("") != "" {
		t.Fatal("resource type mapping")
	}
}
