package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestObserverSeesEveryEventInOrder: the audit hook receives the whole
// life of a request in order, and a panicking hook does not break the
// engine.
func TestObserverSeesEveryEventInOrder(t *testing.T) {
	var got []EventType
	panicky := true
	e := newEngine(t, &Options{Observer: func(ev Event) {
		got = append(got, ev.Type)
		if panicky {
			panicky = false
			panic("audit bug")
		}
	}})
	_, err := e.Require(t.Context(), click(), 0)
	id := required(t, err).Request.RequestID
	tok, err := e.Approve(id, Decision{Kind: Once})
	if err != nil {
		t.Fatal(err)
	}
	_ = e.Redeem(tok.ApprovalID, Request{SessionID: "s1", Action: "interact.click", Scope: Scope{TabID: 9, Origin: "https://shop.example"}})
	if err := e.Redeem(tok.ApprovalID, Request{SessionID: "s1", Action: "interact.click", Scope: click().Scope}); err != nil {
		t.Fatal(err)
	}
	want := []EventType{Requested, Approved, Rejected, Consumed}
	if !slices.Equal(got, want) {
		t.Fatalf("observer saw %v, want %v", got, want)
	}
}

// TestSlowSubscriberIsDropped: a subscriber that stops reading is cut off
// (its channel closes); the engine and other subscribers carry on.
func TestSlowSubscriberIsDropped(t *testing.T) {
	e := newEngine(t, &Options{SubscriberBuffer: 1})
	slow, cancelSlow := e.Subscribe()
	defer cancelSlow()
	for i := range 3 {
		req := click()
		req.Scope.TabID = i
		fast, cancel := e.Subscribe()
		if _, err := e.Require(t.Context(), req, 0); Code(err) != CodeRequired {
			t.Fatal(err)
		}
		nextEvent(t, fast, Requested)
		cancel()
		cancel() // idempotent
	}
	n := 0
	for range slow {
		n++
	}
	if n != 1 {
		t.Fatalf("slow subscriber got %d events before being dropped, want 1", n)
	}
}

// TestConcurrentUse hammers the engine from many goroutines (run with
// -race): requests, approvals, denials, redemptions, listings.
func TestConcurrentUse(t *testing.T) {
	e := newEngine(t, &Options{MaxPendingPerSession: 1000, SubscriberBuffer: 4096})
	events, cancel := e.Subscribe()
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { // the user: approves even requests, denies odd ones
		i := 0
		for ev := range events {
			if ev.Type != Requested {
				continue
			}
			if i++; i%2 == 0 {
				_, _ = e.Approve(ev.Request.RequestID, Decision{Kind: Once})
			} else {
				_ = e.Deny(ev.Request.RequestID, "")
			}
		}
	})
	var mu sync.Mutex
	outcomes := map[string]int{}
	var calls sync.WaitGroup
	for g := range 16 {
		calls.Go(func() {
			for i := range 50 {
				req := click()
				req.SessionID = fmt.Sprintf("s%d", g)
				req.Scope.TabID = i
				_, err := e.Require(t.Context(), req, time.Minute)
				_ = e.Pending("")
				_ = e.Grants(req.SessionID)
				mu.Lock()
				outcomes[Code(err)]++
				mu.Unlock()
			}
		})
	}
	calls.Wait()
	cancel()
	wg.Wait()
	keys := make([]string, 0, len(outcomes))
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if outcomes[""]+outcomes[CodeDenied] != 16*50 || outcomes[""] == 0 || outcomes[CodeDenied] == 0 {
		t.Fatalf("outcomes %v (codes %v): want every call approved or denied", outcomes, keys)
	}
}

// TestBounds: site grants per session and remembered decisions are capped;
// what falls off is refused as unknown, never allowed.
func TestBounds(t *testing.T) {
	e := newEngine(t, &Options{MaxGrantsPerSession: 2, MaxHistory: 3})
	var ids []string // all pending first, so no grant covers a later one
	for i, origin := range []string{"https://a.example", "https://b.example", "https://a.example", "https://c.example"} {
		req := click()
		req.Scope = Scope{TabID: i, Origin: origin}
		_, err := e.Require(t.Context(), req, 0)
		ids = append(ids, required(t, err).Request.RequestID)
	}
	var first Token
	for i, id := range ids {
		tok, err := e.Approve(id, Decision{Kind: Action, Minutes: 5 + i})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = tok
		}
	}
	var origins []string
	for _, g := range e.Grants("s1") {
		origins = append(origins, g.Origin)
	}
	// a.example was re-granted (replacing its first grant); b.example, the
	// one ending first, made room for c.example.
	if !slices.Equal(origins, []string{"https://a.example", "https://c.example"}) {
		t.Fatalf("grants for %v", origins)
	}
	if err := e.Redeem(first.ApprovalID, Request{SessionID: "s1", Action: "interact.click", Scope: first.Scope}); !errors.Is(err, ErrUnknown) {
		t.Fatalf("evicted approval redeemed: %v, want ErrUnknown", err)
	}
	e.Forget("s1")
	if len(e.Grants("")) != 0 || len(e.Tokens("")) != 0 {
		t.Fatal("Forget left grants or tokens")
	}
}

// TestPageWarningReachesEveryView: a request's page warning is kept
// (capped) and shown wherever the request is: its events and the pending
// list; the agent's approval_required payload does not quote it.
func TestPageWarningReachesEveryView(t *testing.T) {
	e := newEngine(t, nil)
	ch, cancel := e.Subscribe()
	defer cancel()
	req := click()
	req.PageWarning = "The page contained instruction-like text: " + strings.Repeat("x", 2*MaxText)
	_, err := e.Require(t.Context(), req, 0)
	re := required(t, err)
	ev := nextEvent(t, ch, Requested)
	if w := ev.Request.PageWarning; !strings.HasPrefix(w, "The page contained") || len(w) > MaxText {
		t.Errorf("event warning: %d bytes, %q…", len(w), w[:min(len(w), 40)])
	}
	if p := e.Pending("s1"); len(p) != 1 || p[0].PageWarning != ev.Request.PageWarning {
		t.Errorf("pending list lost the warning: %+v", p)
	}
	if raw, _ := json.Marshal(re.Result()); strings.Contains(string(raw), "instruction-like") {
		t.Errorf("approval_required quotes the page: %s", raw)
	}
}
