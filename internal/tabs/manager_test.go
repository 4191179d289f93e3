package tabs

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// fakeExt answers the extension methods the manager calls and records
// them; navigated receives the tab of every Page.navigate.
type fakeExt struct {
	mu        sync.Mutex
	calls     []string
	nextTab   int
	closed    map[int]bool
	navigated chan int
	groupOf   map[int]int // the browser's tabs and their groups (tabs.query)
	gone      bool        // the group 5 is gone: tabs.create into it fails
}

func (f *fakeExt) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, _ := json.Marshal(params)
	var p struct {
		TabID   int    `json:"tab_id"`
		TabIDs  []int  `json:"tab_ids"`
		GroupID *int   `json:"group_id"`
		Method  string `json:"method"`
	}
	json.Unmarshal(raw, &p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.groupOf == nil {
		f.groupOf = map[int]int{}
	}
	name := method
	if p.Method != "" {
		name += " " + p.Method
	}
	f.calls = append(f.calls, name)
	switch method {
	case "tabs.create":
		if f.gone && p.GroupID != nil && *p.GroupID == 5 {
			// The words are the extension's; the manager reads the code.
			return nil, &protocol.Error{Code: protocol.CodeGroupNotFound, Message: "group five went away"}
		}
		f.nextTab++
		f.groupOf[f.nextTab] = NoGroup
		if p.GroupID != nil {
			f.groupOf[f.nextTab] = *p.GroupID
		}
		return json.RawMessage(`{"tab":{"id":` + itoa(f.nextTab) + `,"url":"about:blank","group_id":-1}}`), nil
	case "tabs.group":
		for _, t := range p.TabIDs {
			f.groupOf[t] = 5
		}
		return json.RawMessage(`{"group_id":5}`), nil
	case "tabs.ungroup":
		for _, t := range p.TabIDs {
			f.groupOf[t] = NoGroup
		}
	case "tabs.close":
		f.closed[p.TabID] = true
	case "tabs.query":
		var list []Tab
		for id, g := range f.groupOf {
			if !f.closed[id] {
				list = append(list, Tab{ID: id, GroupID: g})
			}
		}
		raw, _ := json.Marshal(map[string]any{"tabs": list})
		return raw, nil
	case "tabs.get":
		if f.closed[p.TabID] {
			return nil, protocol.Errorf(protocol.CodeTabClosed, false, "gone")
		}
		g, ok := f.groupOf[p.TabID]
		if !ok {
			g = NoGroup
		}
		return json.RawMessage(`{"tab":{"id":` + itoa(p.TabID) + `,"group_id":` + itoa(g) + `}}`), nil
	case "cdp.send":
		if p.Method == "Page.navigate" {
			f.navigated <- p.TabID
			return json.RawMessage(`{"frameId":"F","loaderId":"L"}`), nil
		}
	}
	return json.RawMessage(`{}`), nil
}

func (f *fakeExt) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == name {
			n++
		}
	}
	return n
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

type owner struct {
	id   string
	done chan struct{}
}

func (o owner) ID() string            { return o.id }
func (o owner) Done() <-chan struct{} { return o.done }

// probe is a part of the daemon as the targets see it: it enables capture
// in a tab (Runtime.enable through the tab's session, or enable when set)
// and records the targets that closed.
type probe struct {
	enable func(ctx context.Context, t *target.Target) error
	mu     sync.Mutex
	closed []int
}

func (p *probe) Event(*target.Target, target.Event) {}

func (p *probe) Enable(ctx context.Context, t *target.Target) error {
	if p.enable != nil {
		return p.enable(ctx, t)
	}
	return t.Session().Call(ctx, "Runtime.enable", nil, nil)
}

func (p *probe) Closed(t *target.Target) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = append(p.closed, t.ID())
}

func (p *probe) closedTabs() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.closed)
}

// newTestManager is a manager over a fake extension; the returned function
// delivers one CDP event of a tab as the link does.
func newTestManager(t *testing.T) (*Manager, *fakeExt, func(tab int, method, params string)) {
	t.Helper()
	ext := &fakeExt{closed: map[int]bool{}, navigated: make(chan int, 8)}
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx, Config{Link: ext})
	m.Targets().Listen(&probe{})
	t.Cleanup(func() { cancel(); m.Wait() })
	return m, ext, func(tab int, method, params string) { m.Event(tab, "", method, json.RawMessage(params)) }
}

func TestOpenGroupsAndEnables(t *testing.T) {
	m, ext, _ := newTestManager(t)
	a := owner{"A", make(chan struct{})}
	t1, _, err := m.Open(t.Context(), a, Req{Client: "client-a"})
	if err != nil || t1.GroupID != 5 {
		t.Fatalf("Open = %+v, %v", t1, err)
	}
	t2, _, err := m.Open(t.Context(), a, Req{Client: "client-a"})
	if err != nil || t2.ID == t1.ID {
		t.Fatalf("second Open = %+v, %v", t2, err)
	}
	if got := ext.count("tabs.group"); got != 1 {
		t.Fatalf("tabs.group called %d times, want once (the second tab joins the group)", got)
	}
	if got := ext.count("cdp.send Runtime.enable"); got != 2 {
		t.Fatalf("capture enabled %d times, want 2", got)
	}
	if cur, _ := m.Resolve("A", 0); cur != t2.ID {
		t.Fatalf("current tab = %d, want the newest %d", cur, t2.ID)
	}
	// Enabled stays enabled; a detach or a lost link means enabling again.
	if _, err := m.Session(t.Context(), "A", t1.ID); err != nil {
		t.Fatal(err)
	}
	if got := ext.count("cdp.send Runtime.enable"); got != 2 {
		t.Fatalf("an enabled tab was enabled again (%d)", got)
	}
	m.OnEvent("cdp.detached", json.RawMessage(`{"tab_id":`+itoa(t1.ID)+`,"reason":"idle"}`))
	m.LinkLost(0)
	if _, err := m.Session(t.Context(), "A", t1.ID); err != nil {
		t.Fatal(err)
	}
	if got := ext.count("cdp.send Runtime.enable"); got != 3 {
		t.Fatalf("Runtime.enable count = %d, want 3", got)
	}
	// Another session cannot use A's tab, and is told so before anything runs.
	if e := m.Check("B", t1.ID); e == nil || e.Code != CodeTabNotOwned {
		t.Fatalf("Check(B, A's tab) = %v", e)
	}
}

// A session whose group Chrome removed (its last tab closed) gets a new
// one: the manager knows the group is gone by the extension's code.
func TestOpenMakesANewGroupWhenItsGroupIsGone(t *testing.T) {
	m, ext, _ := newTestManager(t)
	a := owner{"A", make(chan struct{})}
	if _, _, err := m.Open(t.Context(), a, Req{}); err != nil {
		t.Fatal(err)
	}
	ext.mu.Lock()
	ext.gone = true
	ext.mu.Unlock()
	tab, _, err := m.Open(t.Context(), a, Req{})
	if err != nil {
		t.Fatalf("Open after the group went: %v", err)
	}
	if got := ext.count("tabs.group"); got != 2 || tab.GroupID != 5 {
		t.Fatalf("tabs.group called %d times (group %d); want a new group made", got, tab.GroupID)
	}
}

func TestNavigateEndsWhenTheTabCloses(t *testing.T) {
	m, ext, event := newTestManager(t)
	a := owner{"A", make(chan struct{})}
	tab, _, err := m.Open(t.Context(), a, Req{})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, _, err := m.Navigate(t.Context(), a, Req{URL: "http://127.0.0.1/slow", Wait: WaitLoad})
		errc <- err
	}()
	<-ext.navigated
	// Another frame's load does not end the wait; the tab closing does.
	event(tab.ID, "Page.lifecycleEvent", `{"frameId":"X","loaderId":"L","name":"load","timestamp":1}`)
	m.OnEvent("tabs.removed", json.RawMessage(`{"tab_id":`+itoa(tab.ID)+`}`)) // its target closes: the wait ends
	var te *tools.Error
	if err := <-errc; !errors.As(err, &te) || te.Code != CodeTabClosed {
		t.Fatalf("navigate = %v, want tab_closed", err)
	}
	if e := m.Check("A", tab.ID); e == nil || e.Code != CodeTabClosed {
		t.Fatalf("a closed tab's lookup = %v", e)
	}
}

func TestNavigateWaitsForItsOwnLoad(t *testing.T) {
	m, ext, event := newTestManager(t)
	a := owner{"A", make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, _, err := m.Navigate(t.Context(), a, Req{URL: "http://127.0.0.1/", Wait: WaitDOMContent})
		done <- err
	}()
	tab := <-ext.navigated // the session had no tab: Navigate opened one
	event(tab, "Page.lifecycleEvent", `{"frameId":"F","loaderId":"L","name":"DOMContentLoaded","timestamp":1}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, _, err := m.Navigate(ctx, a, Req{URL: "http://127.0.0.1/", Wait: WaitLoad})
	<-ext.navigated
	var te *tools.Error
	if !errors.As(err, &te) || te.Code != tools.CodeTimeout {
		t.Fatalf("a load that never comes = %v, want timeout", err)
	}
}

func TestUngroupedTabLeavesAndSessionEndClosesItsTabs(t *testing.T) {
	m, ext, _ := newTestManager(t)
	a := owner{"A", make(chan struct{})}
	t1, _, _ := m.Open(t.Context(), a, Req{})
	t2, _, _ := m.Open(t.Context(), a, Req{})
	t3, _, _ := m.Open(t.Context(), a, Req{})
	ext.mu.Lock()
	ext.groupOf[t1.ID] = NoGroup // the user dragged it out
	ext.closed[t3.ID] = true     // closing a grouped tab also reports it ungrouped
	ext.mu.Unlock()
	m.OnEvent("tabs.ungrouped", json.RawMessage(`{"tab_id":`+itoa(t1.ID)+`,"group_id":5}`))
	m.OnEvent("tabs.ungrouped", json.RawMessage(`{"tab_id":`+itoa(t3.ID)+`,"group_id":5}`))
	waitFor(t, func() bool { return !m.Registry().Owned(t1.ID) && !m.Registry().Owned(t3.ID) })
	if e := m.Check("A", t1.ID); e == nil || e.Code != CodeTabNotOwned {
		t.Fatalf("dragged-out tab: %v", e)
	}
	if e := m.Check("A", t3.ID); e == nil || e.Code != CodeTabClosed {
		t.Fatalf("closed tab: %v", e)
	}
	close(a.done) // the session ends
	waitFor(t, func() bool { return !m.Registry().Owned(t2.ID) })
	waitFor(t, func() bool { return ext.count("tabs.close") == 1 }) // t2, which the session opened
	if got := ext.count("cdp.detach"); got != 1 {
		t.Fatalf("cdp.detach called %d times, want once (t1, taken back by the user)", got)
	}
}

// waitFor waits for the manager's background work (bounded).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}
