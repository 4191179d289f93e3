package approval

import (
	"fmt"
	"testing"
	"time"
)

// overCap fails the test when a store of the engine holds more than its
// bound.
func overCap(t *testing.T, e *Engine, when string) {
	t.Helper()
	for _, st := range e.Sizes(4) {
		if st.Over() {
			t.Fatalf("%s: %s holds %d, cap %d", when, st.Name, st.Len, st.Cap)
		}
	}
}

// TestEngineHoldsItsCaps fills every store past its cap: requests beyond
// MaxPending are refused, decided and expired requests (and their tokens)
// beyond MaxHistory are forgotten oldest first, and a session's site
// grants stay within MaxGrantsPerSession.
func TestEngineHoldsItsCaps(t *testing.T) {
	clk := newFakeClock()
	e := newEngine(t, &Options{Clock: clk, MaxPending: 8, MaxPendingPerSession: 8, MaxHistory: 10, MaxGrantsPerSession: 3})
	request := func(session string, i int) string {
		req := click()
		req.SessionID = session
		req.Scope.TabID = i
		req.Scope.Origin = fmt.Sprintf("https://site%d.example/", i)
		_, err := e.Require(t.Context(), req, 0)
		if re, ok := err.(*RequiredError); ok {
			return re.Request.RequestID
		}
		return ""
	}
	for i := range 40 {
		id := request(fmt.Sprint("s", 2+i%3), 100+i)
		if i%2 == 0 {
			e.Approve(id, Decision{Kind: Site, Minutes: 60})
		} else {
			e.Deny(id, "no")
		}
		overCap(t, e, fmt.Sprintf("after %d decisions", i+1))
	}
	for i := range 20 {
		request("s1", i)
		overCap(t, e, fmt.Sprintf("after %d requests", i+1))
	}
	// Undecided requests expire into the decided ones: still capped.
	clk.Advance(5*time.Minute + time.Second)
	e.Pending("")
	overCap(t, e, "after expiry")
	if n := len(e.Grants("s2")); n > 3 {
		t.Fatalf("session s2 holds %d grants, cap 3", n)
	}
}
