package approval

import (
	"errors"
	"testing"
	"time"
)

// approved returns an engine on a fake clock and a fresh unused token for
// click(), approved once.
func approved(t *testing.T) (*Engine, *fakeClock, Token) {
	t.Helper()
	clk := newFakeClock()
	e := newEngine(t, &Options{Clock: clk, TokenTTL: 2 * time.Minute})
	_, err := e.Require(t.Context(), click(), 0)
	tok, err := e.Approve(required(t, err).Request.RequestID, Decision{Kind: Once})
	if err != nil {
		t.Fatal(err)
	}
	return e, clk, tok
}

// TestRedeemRejections: every way a token can be wrong is refused with its
// reason, and the refusal does not use the token up.
func TestRedeemRejections(t *testing.T) {
	base := click()
	tests := []struct {
		name    string
		mutate  func(r *Request, tok *Token, e *Engine, clk *fakeClock)
		want    error
		code    string
		stillOK bool // the token still works afterwards for the right call
	}{
		{"expired", func(r *Request, _ *Token, _ *Engine, clk *fakeClock) { clk.Advance(2 * time.Minute) }, ErrExpired, CodeRejected, false},
		{"replayed", func(r *Request, tok *Token, e *Engine, _ *fakeClock) {
			if err := e.Redeem(tok.ApprovalID, Request{SessionID: r.SessionID, Action: r.Action, Scope: r.Scope}); err != nil {
				t.Fatalf("first use: %v", err)
			}
		}, ErrReplayed, CodeRejected, false},
		{"other session", func(r *Request, _ *Token, _ *Engine, _ *fakeClock) { r.SessionID = "s2" }, ErrOtherSession, CodeRejected, true},
		{"other tab", func(r *Request, _ *Token, _ *Engine, _ *fakeClock) { r.Scope.TabID = 8 }, ErrOtherTab, CodeRejected, true},
		{"other origin", func(r *Request, _ *Token, _ *Engine, _ *fakeClock) { r.Scope.Origin = "https://evil.example" }, ErrOtherOrigin, CodeRejected, true},
		{"other origin, suffix trick", func(r *Request, _ *Token, _ *Engine, _ *fakeClock) {
			r.Scope.Origin = "https://shop.example.evil.com/checkout"
		}, ErrOtherOrigin, CodeRejected, true},
		{"other origin, port", func(r *Request, _ *Token, _ *Engine, _ *fakeClock) { r.Scope.Origin = "https://shop.example:8443" }, ErrOtherOrigin, CodeRejected, true},
		{"other action", func(r *Request, _ *Token, _ *Engine, _ *fakeClock) { r.Action = "interact.type" }, ErrOtherAction, CodeRejected, true},
		{"unknown", func(_ *Request, tok *Token, _ *Engine, _ *fakeClock) { tok.ApprovalID = newID("apr_") }, ErrUnknown, CodeRejected, true},
		{"garbage id", func(_ *Request, tok *Token, _ *Engine, _ *fakeClock) { tok.ApprovalID = "yes please" }, ErrUnknown, CodeRejected, true},
	}
	for _, tt := range tests {
		for _, via := range []string{"Redeem", "Require"} {
			t.Run(tt.name+"/"+via, func(t *testing.T) {
				e, clk, tok := approved(t)
				events, cancel := e.Subscribe()
				defer cancel()
				call, presented := base, tok
				tt.mutate(&call, &presented, e, clk)
				for len(events) > 0 {
					<-events // the setup's own events
				}
				var err error
				if via == "Redeem" {
					err = e.Redeem(presented.ApprovalID, Request{SessionID: call.SessionID, Action: call.Action, Scope: call.Scope})
				} else {
					_, err = e.Require(t.Context(), withApproval(call, presented.ApprovalID), 0)
				}
				wantReason(t, err, tt.want, tt.code)
				if ev := skipTo(t, events, Rejected); ev.Reason != err.Error() {
					t.Errorf("rejected event reason %q, want %q", ev.Reason, err.Error())
				}
				err = e.Redeem(tok.ApprovalID, Request{SessionID: base.SessionID, Action: base.Action, Scope: base.Scope})
				if tt.stillOK && err != nil {
					t.Fatalf("after a refused attempt the right call fails: %v", err)
				}
			})
		}
	}
}

// TestRedeemAcceptsEquivalentOrigin: the origin is compared parsed, so the
// page URL, case and the default port do not matter.
func TestRedeemAcceptsEquivalentOrigin(t *testing.T) {
	e, _, tok := approved(t)
	if err := e.Redeem(tok.ApprovalID, Request{SessionID: "s1", Action: "interact.click", Scope: Scope{TabID: 7, Origin: "HTTPS://Shop.Example:443/cart?x=1"}}); err != nil {
		t.Fatalf("Redeem with an equivalent origin: %v", err)
	}
}

// TestRedeemHonoursPolicyChange: an approval does not outlive a deny rule
// added after it.
func TestRedeemHonoursPolicyChange(t *testing.T) {
	clk := newFakeClock()
	d := &switchable{p: mustPolicy(t, `{"rules":[]}`)}
	e := newEngine(t, &Options{Clock: clk, Policy: d})
	_, err := e.Require(t.Context(), click(), 0)
	tok, err := e.Approve(required(t, err).Request.RequestID, Decision{Kind: Once})
	if err != nil {
		t.Fatal(err)
	}
	d.p = mustPolicy(t, `{"rules":[{"effect":"deny","class":"mutating","action":"*","origin":"https://shop.example"}]}`)
	err = e.Redeem(tok.ApprovalID, Request{SessionID: "s1", Action: "interact.click", Scope: click().Scope})
	wantReason(t, err, ErrPolicyDenied, CodePolicyDenied)
}

// TestTokenExpiryAnnounced: an approval never used expires with an event.
func TestTokenExpiryAnnounced(t *testing.T) {
	e, clk, tok := approved(t)
	events, cancel := e.Subscribe()
	defer cancel()
	clk.Advance(2 * time.Minute)
	if got := e.Tokens("s1"); len(got) != 0 {
		t.Fatalf("Tokens after expiry = %+v", got)
	}
	if ev := nextEvent(t, events, Expired); ev.ApprovalID != tok.ApprovalID {
		t.Fatalf("expired event for %q, want %q", ev.ApprovalID, tok.ApprovalID)
	}
	// Long after, the id is forgotten, and still refused.
	clk.Advance(time.Hour)
	if err := e.Redeem(tok.ApprovalID, Request{SessionID: "s1", Action: "interact.click", Scope: click().Scope}); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Redeem long after = %v, want ErrUnknown", err)
	}
}
