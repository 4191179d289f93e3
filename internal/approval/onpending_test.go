package approval

import (
	"testing"
	"time"
)

// TestOnPendingHook: the hook sees the pending request a call waits on —
// once, with its request id — for a new request and for a retry of a
// pending one; never for a call the policy or a grant lets through; and
// records and events never keep it.
func TestOnPendingHook(t *testing.T) {
	e := newEngine(t, &Options{Clock: newFakeClock()})
	var got []Request
	req := click()
	req.OnPending = func(r Request) { got = append(got, r) }
	_, err := e.Require(t.Context(), req, 0)
	re := required(t, err)
	if len(got) != 1 || got[0].RequestID != re.Request.RequestID || got[0].Action != req.Action {
		t.Fatalf("hook saw %+v, want the request %s once", got, re.Request.RequestID)
	}
	if p := e.Pending(""); len(p) != 1 || p[0].OnPending != nil {
		t.Fatalf("pending keeps the hook: %+v", p)
	}

	retry := withApproval(req, re.Request.RequestID)
	_, err = e.Require(t.Context(), retry, 0)
	required(t, err)
	if len(got) != 2 || got[1].RequestID != re.Request.RequestID {
		t.Fatalf("retry: hook saw %+v", got)
	}

	if _, err := e.Approve(re.Request.RequestID, Decision{Kind: Once}); err != nil {
		t.Fatal(err)
	}
	_, err = e.Require(t.Context(), retry, time.Second)
	if err != nil {
		t.Fatalf("approved retry: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("a call that runs at once is not announced: %+v", got)
	}
}
