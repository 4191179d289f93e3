package tabs

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// recorder is Browsers over one fake extension, recording revocations.
type recorder struct {
	single
	mu      sync.Mutex
	revoked map[int]error
}

func (r *recorder) Revoke(tab int, cause error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.revoked[tab] = cause
}

func (r *recorder) cause(tab int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.revoked[tab]
}

type sharing struct {
	m      *Manager
	ext    *fakeExt
	b      *recorder
	cancel context.CancelFunc
}

// newSharing is a manager keeping its state in dir ("" in memory).
func newSharing(t *testing.T, dir string, ext *fakeExt) *sharing {
	t.Helper()
	if ext == nil {
		ext = &fakeExt{closed: map[int]bool{}, navigated: make(chan int, 8), groupOf: map[int]int{}}
	}
	b := &recorder{single: single{ext}, revoked: map[int]error{}}
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx, Config{Link: ext, Browsers: b, Dir: dir})
	m.Targets().Listen(&probe{})
	s := &sharing{m: m, ext: ext, b: b, cancel: cancel}
	t.Cleanup(s.stop)
	return s
}

func (s *sharing) stop() { s.cancel(); s.m.Wait() }

func (s *sharing) userTab(id, group int) {
	s.ext.mu.Lock()
	s.ext.groupOf[id] = group
	s.ext.mu.Unlock()
}

// The user moves a tab into the session's group: it is shared, capture
// starts then; moved out, it is revoked: calls in flight end and later
// calls get tab_not_shared with the ask to share again.
func TestUserSharesByMovingIntoTheGroupAndTakesItBack(t *testing.T) {
	s := newSharing(t, "", nil)
	a := owner{"A", make(chan struct{})}
	mine, _, err := s.m.Open(t.Context(), a, Req{Client: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	s.userTab(100, mine.GroupID)
	s.m.OnEvent("tabs.grouped", json.RawMessage(`{"tab_id":100,"group_id":5}`))
	if since := s.m.Target(100).CaptureStart(); since.IsZero() {
		t.Fatal("capture of the shared tab starts at its beginning, not when it was shared")
	}
	if sid, shared, ok := s.m.Holder(100); !ok || sid != "A" || !shared {
		t.Fatalf("Holder(100) = %q %v %v", sid, shared, ok)
	}
	if cur, _ := s.m.Resolve("A", 0); cur != 100 {
		t.Fatalf("the shared tab is not the current one: %d", cur)
	}
	s.m.OnEvent("tabs.grouped", json.RawMessage(`{"tab_id":101,"group_id":77}`)) // a group of nobody
	if s.m.Registry().Owned(101) {
		t.Fatal("a tab in a group no session holds was taken")
	}

	s.userTab(100, NoGroup)
	s.m.OnEvent("tabs.ungrouped", json.RawMessage(`{"tab_id":100,"group_id":5}`))
	waitFor(t, func() bool { return !s.m.Registry().Owned(100) && s.b.cause(100) != nil })
	var te *tools.Error
	if !errors.As(s.b.cause(100), &te) || te.Code != CodeTabNotShared {
		t.Fatalf("calls in flight ended with %v, want tab_not_shared", s.b.cause(100))
	}
	e := s.m.Check("A", 100)
	if e == nil || e.Code != CodeTabNotShared || e.NextAction == nil || e.NextAction.AskUser == "" {
		t.Fatalf("a later call: %+v", e)
	}
	waitFor(t, func() bool { return s.ext.count("cdp.detach") == 1 })
}

// Share and Stop sharing from the panel.
func TestShareAndUnshareFromThePanel(t *testing.T) {
	s := newSharing(t, "", nil)
	s.userTab(300, NoGroup)
	if err := s.m.Share(t.Context(), "B", "codex", 300); err != nil {
		t.Fatal(err)
	}
	if g := s.m.Registry().Group("B", 0); g != 5 {
		t.Fatalf("the session's group is %d, want the one made for it", g)
	}
	if !s.m.IsShared(300) {
		t.Fatal("not shared")
	}
	if err := s.m.Share(t.Context(), "C", "other", 300); err == nil {
		t.Fatal("a tab shared with B was shared with C too")
	}
	if _, err := s.m.Close(t.Context(), "B", 300); err == nil {
		t.Fatal("close_tab closed the user's own tab")
	}
	if err := s.m.Unshare(t.Context(), 300); err != nil {
		t.Fatal(err)
	}
	if s.m.Registry().Owned(300) || s.ext.count("tabs.ungroup") != 1 || s.ext.count("cdp.detach") != 1 {
		t.Fatalf("after Stop sharing: owned %v, calls %v", s.m.Registry().Owned(300), s.ext.calls)
	}
	if e := s.m.Check("B", 300); e == nil || e.Code != CodeTabNotShared {
		t.Fatalf("after Stop sharing: %+v", e)
	}
}

// A session that ends closes the tabs it opened and hands the shared ones
// back (ungrouped, detached, open).
func TestSessionEndClosesOpenedTabsOnly(t *testing.T) {
	s := newSharing(t, "", nil)
	a := owner{"A", make(chan struct{})}
	mine, _, _ := s.m.Open(t.Context(), a, Req{})
	s.userTab(100, 5)
	s.m.OnEvent("tabs.grouped", json.RawMessage(`{"tab_id":100,"group_id":5}`))
	close(a.done)
	waitFor(t, func() bool { return s.ext.count("tabs.close") == 1 })
	s.ext.mu.Lock()
	closedMine, closedUsers := s.ext.closed[mine.ID], s.ext.closed[100]
	s.ext.mu.Unlock()
	if !closedMine || closedUsers {
		t.Fatalf("closed: the session's %v, the user's %v", closedMine, closedUsers)
	}
	waitFor(t, func() bool { return s.ext.count("tabs.ungroup") == 1 && s.ext.count("cdp.detach") == 1 })
}

// A daemon that stops keeps ownership (nothing is closed); the next one
// restores it from tabs.json and reconciles with the browser's groups when
// it connects: a tab gone closed, a tab moved out is taken back, a tab
// moved in meanwhile is shared.
func TestRestartKeepsOwnershipAndGroupsAreTheTruth(t *testing.T) {
	dir := t.TempDir()
	s := newSharing(t, dir, nil)
	a := owner{"A", make(chan struct{})}
	t1, _, _ := s.m.Open(t.Context(), a, Req{})
	t2, _, _ := s.m.Open(t.Context(), a, Req{})
	t3, _, _ := s.m.Open(t.Context(), a, Req{})
	s.m.Switch("A", t2.ID) // the current tab
	s.stop()
	if n := s.ext.count("tabs.close"); n != 0 {
		t.Fatalf("a daemon that stopped closed %d tabs", n)
	}

	s.ext.mu.Lock()
	s.ext.groupOf[t1.ID] = NoGroup // moved out while the daemon was away
	s.ext.closed[t3.ID] = true     // closed meanwhile
	s.ext.groupOf[200] = 5         // the user's tab, moved in meanwhile
	s.ext.mu.Unlock()
	again := newSharing(t, dir, s.ext)
	if cur, _ := again.m.Resolve("A", 0); cur != t2.ID {
		t.Fatalf("current tab after restart = %d, want %d", cur, t2.ID)
	}
	again.m.Sessions(func(id string) Owner {
		if id == "A" {
			return a
		}
		return nil
	})
	again.m.LinkReady(0, false)
	waitFor(t, func() bool {
		return again.m.IsShared(200) && !again.m.Registry().Owned(t1.ID) && !again.m.Registry().Owned(t3.ID)
	})
	if e := again.m.Check("A", t1.ID); e == nil || e.Code != CodeTabNotOwned {
		t.Fatalf("moved out: %+v", e)
	}
	if e := again.m.Check("A", t3.ID); e == nil || e.Code != CodeTabClosed {
		t.Fatalf("closed: %+v", e)
	}
	if e := again.m.Check("A", t2.ID); e != nil {
		t.Fatalf("the tab still in the group: %+v", e)
	}

	// The browser restarted: its ids of before mean other tabs now.
	again.m.LinkReady(0, true)
	if again.m.Registry().Owned(t2.ID) || again.m.Registry().Group("A", 0) != NoGroup {
		t.Fatalf("a restarted browser's tabs are still owned: %v, group %d", again.m.Registry().Tabs("A"), again.m.Registry().Group("A", 0))
	}
	if e := again.m.Check("A", t2.ID); e == nil || e.Code != CodeTabClosed {
		t.Fatalf("after the browser restarted: %+v", e)
	}
}

// A session the restart did not keep has its tabs ended (the opened ones
// closed) once the sessions are known.
func TestTabsOfALostSessionEnd(t *testing.T) {
	dir := t.TempDir()
	s := newSharing(t, dir, nil)
	t1, _, _ := s.m.Open(t.Context(), owner{"gone", make(chan struct{})}, Req{})
	s.stop()
	again := newSharing(t, dir, s.ext)
	again.m.Sessions(func(string) Owner { return nil })
	waitFor(t, func() bool {
		again.ext.mu.Lock()
		defer again.ext.mu.Unlock()
		return again.ext.closed[t1.ID]
	})
}

// Tabs of another browser live in their own slot: opening there uses that
// browser's group, and ids never meet.
func TestTabsOfTwoBrowsers(t *testing.T) {
	s := newSharing(t, "", nil)
	a := owner{"A", make(chan struct{})}
	t0, _, _ := s.m.Open(t.Context(), a, Req{})
	s.m.Registry().SetGroup("A", 1, 9)
	s.m.Registry().Share("A", browsers.TabID(1, t0.ID))
	if !s.m.Registry().Owned(t0.ID) || !s.m.Registry().Owned(browsers.TabID(1, t0.ID)) {
		t.Fatal("the same Chrome id in two browsers is two tabs")
	}
	if sid, ok := s.m.Registry().GroupOwner(1, 9); !ok || sid != "A" {
		t.Fatal("group of browser 1")
	}
	if got := s.m.latestIn("A", 1); got != browsers.TabID(1, t0.ID) {
		t.Fatalf("latestIn(1) = %d", got)
	}
}
