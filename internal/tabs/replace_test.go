package tabs

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// TestReplacedTabStaysTheSessions: when Chrome replaces an owned tab
// (tabs.replaced), the session owns the new id in the old one's place with
// its URL, the old tab's state is released, capture is enabled in the new
// tab, and a call naming the old id is told which tab to use.
func TestReplacedTabStaysTheSessions(t *testing.T) {
	ext := &fakeExt{closed: map[int]bool{}, navigated: make(chan int, 8)}
	enabled := make(chan int, 8)
	p := &probe{enable: func(_ context.Context, t *target.Target) error { enabled <- t.ID(); return nil }}
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx, Config{Link: ext})
	m.Targets().Listen(p)
	t.Cleanup(func() { cancel(); m.Wait() })

	a := owner{"A", make(chan struct{})}
	b := owner{"B", make(chan struct{})}
	old, _, err := m.Open(t.Context(), a, Req{})
	if err != nil {
		t.Fatal(err)
	}
	cur, _, _ := m.Open(t.Context(), a, Req{})
	other, _, _ := m.Open(t.Context(), b, Req{})
	for range 3 {
		recv(t, enabled) // Open enables capture in each tab
	}
	m.OnEvent("tabs.updated", json.RawMessage(`{"tab_id":`+itoa(old.ID)+`,"url":"http://a.test/page"}`))

	const now = 50
	m.OnEvent("tabs.replaced", json.RawMessage(`{"tab_id":50,"replaced_tab_id":`+itoa(old.ID)+`}`))
	if got := recv(t, enabled); got != now {
		t.Fatalf("capture enabled in tab %d, want the new tab %d", got, now)
	}
	if got, want := m.Registry().Tabs("A"), []int{cur.ID, now}; !slices.Equal(got, want) {
		t.Fatalf("A's tabs = %v, want %v", got, want)
	}
	if got := m.URL(now); got != "http://a.test/page" {
		t.Fatalf("URL(%d) = %q, want the old tab's URL", now, got)
	}
	if got := m.URL(old.ID); got != "" {
		t.Fatalf("URL(old %d) = %q, want forgotten", old.ID, got)
	}
	if got, want := p.closedTabs(), []int{old.ID}; !slices.Equal(got, want) {
		t.Fatalf("closed targets %v, want the old tab's %v", got, want)
	}
	if _, err := m.Session(t.Context(), "A", now); err != nil {
		t.Fatalf("Session(A, new tab): %v", err)
	}
	e := m.Check("A", old.ID)
	if e == nil || e.Code != CodeTabClosed {
		t.Fatalf("Check(A, old tab) = %v, want tab_closed", e)
	}
	want := &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "switch_tab", "tab_id": now}}
	if gotNext, _ := json.Marshal(e.NextAction); string(gotNext) != mustJSON(want) {
		t.Errorf("next_action = %s, want %s", gotNext, mustJSON(want))
	}
	if d, _ := json.Marshal(e.Details); string(d) != `{"replaced_by":50}` {
		t.Errorf("details = %s, want replaced_by 50", d)
	}
	if e := m.Check("B", now); e == nil || e.Code != CodeTabNotOwned {
		t.Fatalf("Check(B, A's new tab) = %v, want tab_not_owned", e)
	}

	// Replacements of tabs no session owns change nothing; one that
	// names another session's tab as the new id takes nothing from it
	// (the old tab is gone all the same).
	m.OnEvent("tabs.replaced", json.RawMessage(`{"tab_id":61,"replaced_tab_id":60}`))
	m.OnEvent("tabs.replaced", json.RawMessage(`{"tab_id":0,"replaced_tab_id":`+itoa(cur.ID)+`}`))
	m.OnEvent("tabs.replaced", json.RawMessage(`{"tab_id":"x"}`))
	if !m.Registry().Owned(cur.ID) || m.Registry().Owned(61) {
		t.Fatal("a malformed or foreign tabs.replaced changed ownership")
	}
	m.OnEvent("tabs.replaced", json.RawMessage(`{"tab_id":`+itoa(other.ID)+`,"replaced_tab_id":`+itoa(cur.ID)+`}`))
	if owner, _ := m.Registry().Owner(other.ID); owner != "B" {
		t.Fatalf("B's tab now belongs to %q", owner)
	}
	if e := m.Check("A", cur.ID); e == nil || e.Code != CodeTabClosed {
		t.Fatalf("Check(A, replaced onto a foreign tab) = %v, want tab_closed", e)
	}
}

// recv returns the next value of ch; the bound is only a safety net.
func recv(t *testing.T, ch <-chan int) int {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received within 10s")
		return 0
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
