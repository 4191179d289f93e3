package approval

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// TestNoTokenApprovalRequired: a mutating call without a token becomes an
// approval request, announced and listed, and the call gets the structured
// approval_required result.
func TestNoTokenApprovalRequired(t *testing.T) {
	e := newEngine(t, nil)
	events, cancel := e.Subscribe()
	defer cancel()
	_, err := e.Require(t.Context(), click(), 0)
	re := required(t, err)
	if Code(err) != CodeRequired || !re.Retryable() {
		t.Fatalf("code %q retryable %v, want approval_required, true", Code(err), re.Retryable())
	}
	res := re.Result()
	if res.Type != "approval_required" || res.Scope != "tab:7" || res.Origin != "https://shop.example" ||
		res.Action != "interact.click" || res.SessionID != "s1" || !strings.HasPrefix(res.RequestID, "req_") ||
		!strings.Contains(res.Target, "Pay now") || res.ExpiresAt.IsZero() {
		t.Fatalf("approval_required result = %+v", res)
	}
	ev := nextEvent(t, events, Requested)
	if ev.Request.RequestID != res.RequestID || !slices.Contains(ev.Request.Offers, Action) {
		t.Fatalf("requested event = %+v", ev)
	}
	pending := e.Pending("s1")
	if len(pending) != 1 || pending[0].RequestID != res.RequestID {
		t.Fatalf("Pending(s1) = %+v, want the request", pending)
	}
	if len(e.Pending("s2")) != 0 || len(e.Pending("")) != 1 {
		t.Fatal("Pending is not scoped by session")
	}
}

// TestReadOnlyPassesByDefault: the default policy allows reads at once.
func TestReadOnlyPassesByDefault(t *testing.T) {
	e := newEngine(t, nil)
	req := click()
	req.Action, req.Class = "observe.snapshot", policy.ReadOnly
	g, err := e.Require(t.Context(), req, 0)
	if err != nil || g.By != ByPolicy {
		t.Fatalf("Require(read) = %+v, %v; want allowed by policy", g, err)
	}
	if len(e.Pending("")) != 0 {
		t.Fatal("a read registered an approval request")
	}
}

// TestWaitingCallResumesWhenApproved: the call waits within its budget and
// runs when the user approves; the token is minted and consumed.
func TestWaitingCallResumesWhenApproved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEngine(t, nil)
		events, cancel := e.Subscribe()
		defer cancel()
		user := make(chan Token, 1)
		go func() {
			ev := <-events
			time.Sleep(3 * time.Second) // the user reads the request
			tok, err := e.Approve(ev.Request.RequestID, Decision{Kind: Once})
			if err != nil {
				t.Errorf("Approve: %v", err)
			}
			user <- tok
		}()
		start := time.Now()
		g, err := e.Require(t.Context(), click(), 15*time.Second)
		if err != nil || g.By != ByApproval {
			t.Fatalf("Require = %+v, %v; want approved", g, err)
		}
		if waited := time.Since(start); waited != 3*time.Second {
			t.Errorf("call waited %v, want 3s (until the approval)", waited)
		}
		tok := <-user
		if g.ApprovalID != tok.ApprovalID || !strings.HasPrefix(tok.ApprovalID, "apr_") || !tok.SingleUse ||
			tok.SessionID != "s1" || tok.Scope != (Scope{TabID: 7, Origin: "https://shop.example"}) {
			t.Fatalf("grant %+v, token %+v", g, tok)
		}
		nextEvent(t, events, Approved)
		nextEvent(t, events, Consumed)
		if len(e.Tokens("s1")) != 0 || len(e.Pending("s1")) != 0 {
			t.Fatal("the consumed token or the decided request is still listed")
		}
		// The token was consumed: retrying with it is a replay.
		_, err = e.Require(t.Context(), withApproval(click(), tok.ApprovalID), 0)
		wantReason(t, err, ErrReplayed, CodeRejected)
	})
}

func withApproval(r Request, id string) Request {
	r.ApprovalID = id
	return r
}

// TestDenyWhileWaiting: a denial ends the waiting call with approval_denied.
func TestDenyWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEngine(t, nil)
		events, cancel := e.Subscribe()
		defer cancel()
		go func() {
			ev := <-events
			if err := e.Deny(ev.Request.RequestID, "not on my card"); err != nil {
				t.Errorf("Deny: %v", err)
			}
		}()
		_, err := e.Require(t.Context(), click(), 15*time.Second)
		wantReason(t, err, ErrDenied, CodeDenied)
		if !strings.Contains(err.Error(), "approval: denied") || !strings.Contains(err.Error(), "not on my card") {
			t.Fatalf("error %q does not say denied and why", err)
		}
		synctest.Wait()
		nextEvent(t, events, Denied)
		// A retry with the denied request's id is refused the same way.
		var e2 *Error
		errors.As(err, &e2)
		_, err = e.Require(t.Context(), withApproval(click(), e2.RequestID), 0)
		wantReason(t, err, ErrDenied, CodeDenied)
	})
}

// TestBudgetPassesThenRetry: past its budget the call returns the request;
// the user approves later; the agent retries with the approval id (or the
// request id) and the call runs once.
func TestBudgetPassesThenRetry(t *testing.T) {
	for _, useRequestID := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			e := newEngine(t, nil)
			_, err := e.Require(t.Context(), click(), 15*time.Second)
			re := required(t, err)
			time.Sleep(time.Minute)
			tok, err := e.Approve(re.Request.RequestID, Decision{Kind: Once})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Tokens("s1"); len(got) != 1 || got[0].ApprovalID != tok.ApprovalID {
				t.Fatalf("Tokens(s1) = %+v, want the unused token", got)
			}
			id := tok.ApprovalID
			if useRequestID {
				id = re.Request.RequestID
			}
			g, err := e.Require(t.Context(), withApproval(click(), id), 0)
			if err != nil || g.By != ByApproval || g.ApprovalID != tok.ApprovalID {
				t.Fatalf("retry = %+v, %v; want the approval consumed", g, err)
			}
			_, err = e.Require(t.Context(), withApproval(click(), id), 0)
			wantReason(t, err, ErrReplayed, CodeRejected)
		})
	}
}

// TestRetryWhilePendingWaits: a retry with the id of a still-pending
// request waits on it (no second request) and runs when approved.
func TestRetryWhilePendingWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEngine(t, nil)
		_, err := e.Require(t.Context(), click(), time.Second)
		re := required(t, err)
		go func() {
			time.Sleep(5 * time.Second)
			if _, err := e.Approve(re.Request.RequestID, Decision{Kind: Once}); err != nil {
				t.Errorf("Approve: %v", err)
			}
		}()
		g, err := e.Require(t.Context(), withApproval(click(), re.Request.RequestID), 15*time.Second)
		if err != nil || g.By != ByApproval {
			t.Fatalf("retry = %+v, %v; want approved", g, err)
		}
		// A retry on another tab with that request id is refused.
		_, err = e.Require(t.Context(), click(), 0)
		re2 := required(t, err)
		other := withApproval(click(), re2.Request.RequestID)
		other.Scope.TabID = 8
		_, err = e.Require(t.Context(), other, 0)
		wantReason(t, err, ErrOtherTab, CodeRejected)
		if err := e.Redeem(re2.Request.RequestID, Request{SessionID: "s1", Action: "interact.click", Scope: click().Scope}); !errors.Is(err, ErrPending) || Code(err) != CodePending {
			t.Fatalf("Redeem(pending) = %v, want approval_pending", err)
		}
	})
}

// TestPendingExpires: a request nobody decides expires after its TTL: the
// waiting call gets ErrExpired, Run announces it, and a late Approve fails.
func TestPendingExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEngine(t, &Options{PendingTTL: 2 * time.Minute})
		events, cancel := e.Subscribe()
		defer cancel()
		_, err := e.Require(t.Context(), click(), 10*time.Minute)
		wantReason(t, err, ErrExpired, CodeRejected)
		nextEvent(t, events, Requested)
		nextEvent(t, events, Expired)

		// With Run, an undecided request is announced as expired on time,
		// without any other call.
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		go e.Run(ctx)
		_, err = e.Require(t.Context(), click(), 0)
		re := required(t, err)
		nextEvent(t, events, Requested)
		time.Sleep(2*time.Minute + time.Second)
		synctest.Wait()
		if ev := nextEvent(t, events, Expired); ev.Request.RequestID != re.Request.RequestID {
			t.Fatalf("expired event for %s, want %s", ev.Request.RequestID, re.Request.RequestID)
		}
		if _, err := e.Approve(re.Request.RequestID, Decision{Kind: Once}); !errors.Is(err, ErrExpired) {
			t.Fatalf("late Approve = %v, want ErrExpired", err)
		}
	})
}

// TestContextEnds: a caller that goes away gets the request back (with the
// context's error) and the request stays pending for a retry.
func TestContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEngine(t, nil)
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		_, err := e.Require(ctx, click(), time.Minute)
		re := required(t, err)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v does not carry the context's error", err)
		}
		if p := e.Pending("s1"); len(p) != 1 || p[0].RequestID != re.Request.RequestID {
			t.Fatalf("Pending after ctx end = %+v", p)
		}
	})
}

// TestIdenticalCallsShareOneRequest: concurrent identical calls make one
// request; one approval runs exactly one of them.
func TestIdenticalCallsShareOneRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEngine(t, nil)
		var wg sync.WaitGroup
		results := make([]error, 2)
		for i := range results {
			wg.Go(func() { _, results[i] = e.Require(t.Context(), click(), time.Minute) })
		}
		synctest.Wait()
		p := e.Pending("s1")
		if len(p) != 1 {
			t.Fatalf("%d pending requests, want 1", len(p))
		}
		if _, err := e.Approve(p[0].RequestID, Decision{Kind: Once}); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		ok, replayed := 0, 0
		for _, err := range results {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrReplayed):
				replayed++
			}
		}
		if ok != 1 || replayed != 1 {
			t.Fatalf("results %v: want one run and one replay", results)
		}
	})
}

func TestApproveErrors(t *testing.T) {
	e := newEngine(t, nil)
	if _, err := e.Approve("req_nope", Decision{Kind: Once}); !errors.Is(err, ErrUnknown) {
		t.Errorf("Approve(unknown) = %v", err)
	}
	_, err := e.Require(t.Context(), click(), 0)
	id := required(t, err).Request.RequestID
	for _, d := range []Decision{{Kind: "forever"}, {Kind: Action}, {Kind: Action, Minutes: 481}} {
		if _, err := e.Approve(id, d); !errors.Is(err, ErrInvalid) {
			t.Errorf("Approve(%+v) = %v, want ErrInvalid", d, err)
		}
	}
	if _, err := e.Approve(id, Decision{Kind: Once}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Approve(id, Decision{Kind: Once}); !errors.Is(err, ErrDecided) {
		t.Errorf("second Approve = %v, want ErrDecided", err)
	}
	if err := e.Deny(id, ""); !errors.Is(err, ErrDecided) {
		t.Errorf("Deny after Approve = %v, want ErrDecided", err)
	}
}

func TestBusy(t *testing.T) {
	e := newEngine(t, &Options{MaxPendingPerSession: 2})
	for i := range 3 {
		req := click()
		req.Scope.TabID = i
		_, err := e.Require(t.Context(), req, 0)
		if i < 2 {
			required(t, err)
			continue
		}
		wantReason(t, err, ErrBusy, CodeBusy)
	}
	other := click()
	other.SessionID = "s2"
	if _, err := e.Require(t.Context(), other, 0); Code(err) != CodeRequired {
		t.Fatalf("another session is blocked by s1's requests: %v", err)
	}
}

// TestForget: when a session ends, its waiting calls end and its grants go.
func TestForget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEngine(t, nil)
		errc := make(chan error, 1)
		go func() { _, err := e.Require(t.Context(), click(), time.Minute); errc <- err }()
		synctest.Wait()
		e.Forget("s1")
		wantReason(t, <-errc, ErrExpired, CodeRejected)
		if len(e.Pending("")) != 0 {
			t.Fatal("requests survive Forget")
		}
	})
}

func TestIDsAreUnguessable(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		for _, id := range []string{newID("req_"), newID("apr_")} {
			if len(id) != 4+32 || seen[id] {
				t.Fatalf("id %q: want prefix + 32 hex digits, unique", id)
			}
			seen[id] = true
		}
	}
}

func TestNewRejectsNegativeOptions(t *testing.T) {
	if _, err := New(&Options{PendingTTL: -1}); err == nil {
		t.Fatal("New accepted a negative TTL")
	}
}

func TestLongTextIsCapped(t *testing.T) {
	e := newEngine(t, nil)
	req := click()
	req.Target = strings.Repeat("ü", 5000)
	_, err := e.Require(t.Context(), req, 0)
	got := required(t, err).Request.Target
	if len(got) > MaxText || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Fatalf("target of %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
}

// TestGatesAnswersAsRequireWould: Gates is the policy's part of Require,
// without registering anything: allowed outright, gated (Require would
// look for a grant, an approval or the user), or Require's refusal.
func TestGatesAnswersAsRequireWould(t *testing.T) {
	e := newEngine(t, &Options{Policy: mustPolicy(t, `{"version":1,"rules":[
		{"effect":"allow","class":"mutating","action":"interact.type","origin":"https://shop.example"},
		{"effect":"deny","class":"mutating","action":"interact.check","origin":"*"}]}`)})
	typ, chk := click(), click()
	typ.Action, chk.Action = "interact.type", "interact.check"
	for _, tc := range []struct {
		req   Request
		gated bool
		err   error
	}{
		{click(), true, nil},
		{typ, false, nil},
		{chk, false, ErrPolicyDenied},
		{Request{SessionID: "s1", Action: "interact.click", Class: "weird"}, false, ErrUnclassified},
		{func() Request { r := click(); r.Trigger = true; return r }(), false, ErrTrigger},
	} {
		gated, err := e.Gates(tc.req)
		if gated != tc.gated || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
			t.Errorf("Gates(%s %s) = %v, %v; want %v, %v", tc.req.Action, tc.req.Class, gated, err, tc.gated, tc.err)
		}
		_, rerr := e.Require(t.Context(), tc.req, 0)
		if tc.err != nil && !errors.Is(rerr, tc.err) {
			t.Errorf("Require(%s) = %v, Gates said %v", tc.req.Action, rerr, err)
		}
	}
	if n := len(e.Pending("")); n != 1 {
		t.Fatalf("pending = %d, want only Require's one request (Gates registers nothing)", n)
	}
}
