package feed

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
func (f feedTest) Attached(tab int)                { f.set.Attached(tab) }
func (f feedTest) Children(tab int) []target.Child { return f.set.Get(tab).Children() }

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
