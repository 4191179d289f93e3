package tabs

import (
	"encoding/json"
	"testing"
)

// A tab born in the session's group is the session's at once, its
// current tab; the action that opened it claims it (opener and kind);
// it closes with the session. A popup nobody claimed is the user's: it
// stays open.
func TestPopupsJoinTheSession(t *testing.T) {
	s := newSharing(t, "", nil)
	a := owner{"A", make(chan struct{})}
	mine, _, err := s.m.Open(t.Context(), a, Req{Client: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	mark := s.m.Mark()
	s.userTab(200, mine.GroupID)
	s.m.OnEvent("tabs.opened", json.RawMessage(`{"tab_id":200,"opener_tab_id":999,"group_id":5,"url":"http://127.0.0.1/doc"}`))
	if cur, _ := s.m.Resolve("A", 0); cur != 200 {
		t.Fatalf("the popup is not the current tab: %d", cur)
	}
	if _, ok := s.m.Registry().Opener(200); ok {
		t.Fatal("Chrome's openerTabId (the active tab) was taken as the opener")
	}
	got := s.m.AwaitPopups(t.Context(), "A", mine.ID, mark, 1)
	if len(got) != 1 || got[0].TabID != 200 || got[0].URL != "http://127.0.0.1/doc" {
		t.Fatalf("AwaitPopups = %+v", got)
	}
	if o, _ := s.m.Registry().Opener(200); o != mine.ID || s.m.IsShared(200) {
		t.Fatalf("claimed popup: opener %d, shared %v", o, s.m.IsShared(200))
	}

	s.userTab(201, mine.GroupID) // opened by the page on its own: no action claims it
	s.m.OnEvent("tabs.opened", json.RawMessage(`{"tab_id":201,"group_id":5,"url":"about:blank"}`))
	if !s.m.IsShared(201) {
		t.Fatal("an unclaimed popup is not the user's")
	}
	s.m.OnEvent("tabs.opened", json.RawMessage(`{"tab_id":202,"group_id":77,"url":"http://x/"}`)) // a group of nobody
	s.m.OnEvent("tabs.opened", json.RawMessage(`{"tab_id":203,"opener_tab_id":4242,"url":"http://x/"}`))
	s.m.OnEvent("tabs.opened", json.RawMessage(`{"tab_id":204,"opener_tab_id":`+itoa(mine.ID)+`,"url":"file:///etc/passwd"}`))
	for _, tab := range []int{202, 203, 204} {
		if s.m.Registry().Owned(tab) {
			t.Fatalf("tab %d was adopted", tab)
		}
	}

	s.m.EndSession(t.Context(), "A")
	s.ext.mu.Lock()
	closed200, closed201 := s.ext.closed[200], s.ext.closed[201]
	s.ext.mu.Unlock()
	if !closed200 || closed201 {
		t.Fatalf("at session end: the session's popup closed %v, the user's %v", closed200, closed201)
	}
}

// A popup the session's action opened from the user's shared tab is the
// user's too: it stays open when the session ends.
func TestPopupOfASharedTabIsTheUsers(t *testing.T) {
	s := newSharing(t, "", nil)
	s.userTab(300, NoGroup)
	if err := s.m.Share(t.Context(), "B", "codex", 300); err != nil {
		t.Fatal(err)
	}
	mark := s.m.Mark()
	s.userTab(301, 5)
	s.m.OnEvent("tabs.opened", json.RawMessage(`{"tab_id":301,"group_id":5,"url":"http://127.0.0.1/help"}`))
	got := s.m.AwaitPopups(t.Context(), "B", 300, mark, 1)
	if len(got) != 1 || got[0].TabID != 301 {
		t.Fatalf("AwaitPopups = %+v", got)
	}
	if o, _ := s.m.Registry().Opener(301); o != 300 || !s.m.IsShared(301) {
		t.Fatalf("popup of a shared tab: opener %d, shared %v", o, s.m.IsShared(301))
	}
	s.m.EndSession(t.Context(), "B")
	s.ext.mu.Lock()
	closed := s.ext.closed[301]
	s.ext.mu.Unlock()
	if closed {
		t.Fatal("the user's popup was closed at session end")
	}
}
