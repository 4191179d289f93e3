package approval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// switchable is a Decider whose policy a test can swap (single goroutine).
type switchable struct{ p *policy.Policy }

func (s *switchable) Evaluate(c policy.Class, action, origin string) (policy.Effect, policy.Rule, error) {
	return s.p.Evaluate(c, action, origin)
}

// siteApproved returns an engine on a fake clock where the user approved
// click() as this kind of action on this site for 10 minutes.
func siteApproved(t *testing.T) (*Engine, *fakeClock, SiteGrant) {
	t.Helper()
	return granted(t, Decision{Kind: Action, Minutes: 10}, nil)
}

// granted returns an engine on a fake clock where the user answered
// click() (with risk) with d.
func granted(t *testing.T, d Decision, risk *Risk) (*Engine, *fakeClock, SiteGrant) {
	t.Helper()
	clk := newFakeClock()
	e := newEngine(t, &Options{Clock: clk})
	req := click()
	req.Risk = risk
	_, err := e.Require(t.Context(), req, 0)
	if _, err := e.Approve(required(t, err).Request.RequestID, d); err != nil {
		t.Fatal(err)
	}
	g := e.Grants("s1")
	if len(g) != 1 {
		t.Fatalf("Grants(s1) = %+v, want one", g)
	}
	return e, clk, g[0]
}

// named is a high risk: a click on a control named like delete.
func named(word string) *Risk {
	return &Risk{Tier: High, Why: `clicks a control named like "` + word + `"`,
		Reasons: []Reason{{Mode: "click", Kind: RiskNamed, To: word, Why: "named like " + word}}}
}

// TestSiteGrantCoversOnlyItsScope: a grant covers the same session and
// origin, never a sensitive call or a change of the guards; this kind of
// action covers the same action with no risk the granted call did not
// have (another tab of the origin included), the rest of the session any
// medium-risk call.
func TestSiteGrantCoversOnlyItsScope(t *testing.T) {
	tests := []struct {
		name            string
		mutate          func(r *Request)
		action, session bool // covered by each kind of grant
	}{
		{"same call", func(r *Request) {}, true, true},
		{"other mutating action", func(r *Request) { r.Action = "interact.type" }, false, true},
		{"other tab, same origin", func(r *Request) { r.Scope.TabID = 9 }, true, true},
		{"same origin, other path", func(r *Request) { r.Scope.Origin = "https://shop.example/cart" }, true, true},
		{"high risk", func(r *Request) { r.Risk = named("delete") }, false, false},
		{"other origin", func(r *Request) { r.Scope.Origin = "https://bank.example" }, false, false},
		{"subdomain", func(r *Request) { r.Scope.Origin = "https://pay.shop.example" }, false, false},
		{"suffix trick", func(r *Request) { r.Scope.Origin = "https://shop.example.evil.com" }, false, false},
		{"other scheme", func(r *Request) { r.Scope.Origin = "http://shop.example" }, false, false},
		{"other port", func(r *Request) { r.Scope.Origin = "https://shop.example:8443" }, false, false},
		{"no origin", func(r *Request) { r.Scope.Origin = "" }, false, false},
		{"other class", func(r *Request) { r.Action, r.Class = "interact.execute_js", policy.Sensitive }, false, false},
		{"other session", func(r *Request) { r.SessionID = "s2" }, false, false},
		{"policy change", func(r *Request) { r.Action = "configure.policy" }, false, false},
		{"a plan", func(r *Request) { r.Action, r.Plan = "interact.plan", &PlanProposal{} }, false, false},
	}
	for _, tt := range tests {
		for _, d := range []Decision{{Kind: Action, Minutes: 10}, {Kind: Session}} {
			t.Run(tt.name+"/"+string(d.Kind), func(t *testing.T) {
				e, _, grant := granted(t, d, nil)
				req := click()
				tt.mutate(&req)
				g, err := e.Require(t.Context(), req, 0)
				if covered := map[Kind]bool{Action: tt.action, Session: tt.session}[d.Kind]; covered {
					if err != nil || g.By != BySite || g.ApprovalID != grant.GrantID {
						t.Fatalf("Require = %+v, %v; want covered by the grant", g, err)
					}
					return
				}
				if Code(err) != CodeRequired && !errors.Is(err, ErrInvalid) {
					t.Fatalf("Require = %+v, %v; want approval_required", g, err)
				}
			})
		}
	}
}

// TestActionGrantOnAHighCall: this kind of action given on a click that
// hits a "Delete" control covers such clicks and plain ones on the site,
// not a click that also hits "Pay"; the rest of the session is not offered
// on a high call, and no grant on one that reaches another origin.
func TestActionGrantOnAHighCall(t *testing.T) {
	e, _, g := granted(t, Decision{Kind: Action, Minutes: 10}, named("delete"))
	for _, tc := range []struct {
		risk    *Risk
		covered bool
	}{
		{named("delete"), true},
		{nil, true},
		{&Risk{Tier: High, Reasons: append(named("delete").Reasons, named("pay").Reasons...)}, false},
		{named("pay"), false},
	} {
		req := click()
		req.Risk = tc.risk
		got, err := e.Require(t.Context(), req, 0)
		if tc.covered != (err == nil && got.ApprovalID == g.GrantID) {
			t.Errorf("risk %+v: Require = %+v, %v; want covered %v", tc.risk, got, err, tc.covered)
		}
	}
	req := click()
	req.Risk = named("delete")
	req.Scope.TabID = 8 // another call, so it asks anew
	req.Action = "interact.key_press"
	_, err := e.Require(t.Context(), req, 0)
	if offers := required(t, err).Request.Offers; !slices.Equal(offers, []Kind{Once, Action}) {
		t.Errorf("a high call offers %v, want once and this kind of action", offers)
	}
	req.Risk = &Risk{Tier: High, Reasons: []Reason{{Mode: "click", Kind: RiskSubmit, To: "https://collect.example"}}}
	_, err = e.Require(t.Context(), req, 0)
	if offers := required(t, err).Request.Offers; !slices.Equal(offers, []Kind{Once}) {
		t.Errorf("a submit to another origin offers %v, want once only", offers)
	}
}

// TestSessionGrantLastsTheSession: the rest of the session never runs out
// on the clock; it ends with the session.
func TestSessionGrantLastsTheSession(t *testing.T) {
	e, clk, g := granted(t, Decision{Kind: Session}, nil)
	if !g.ExpiresAt.IsZero() {
		t.Fatalf("a grant for the rest of the session ends at %v", g.ExpiresAt)
	}
	clk.Advance(1000 * time.Hour)
	if got, err := e.Require(t.Context(), click(), 0); err != nil || got.By != BySite {
		t.Fatalf("after 1000 h: %+v, %v; want covered", got, err)
	}
	e.Forget("s1")
	if len(e.Grants("")) != 0 {
		t.Fatal("the session ended and its grant lives on")
	}
}

// TestSiteGrantExpires: the grant covers calls until its minutes pass,
// then calls need the user again, and its expiry is announced.
func TestSiteGrantExpires(t *testing.T) {
	e, clk, grant := siteApproved(t)
	events, cancel := e.Subscribe()
	defer cancel()
	clk.Advance(10*time.Minute - time.Second)
	if g, err := e.Require(t.Context(), click(), 0); err != nil || g.By != BySite {
		t.Fatalf("just before expiry: %+v, %v; want covered", g, err)
	}
	skipTo(t, events, Consumed)
	clk.Advance(time.Second)
	if _, err := e.Require(t.Context(), click(), 0); Code(err) != CodeRequired {
		t.Fatalf("at expiry: %v; want approval_required", err)
	}
	if ev := skipTo(t, events, Expired); ev.ApprovalID != grant.GrantID {
		t.Fatalf("expired event for %q, want the grant %q", ev.ApprovalID, grant.GrantID)
	}
	if len(e.Grants("")) != 0 {
		t.Fatal("an expired grant is still listed")
	}
}

// TestSiteGrantRevoke: the user can end a grant early.
func TestSiteGrantRevoke(t *testing.T) {
	e, _, grant := siteApproved(t)
	if err := e.Revoke(grant.GrantID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Require(t.Context(), click(), 0); Code(err) != CodeRequired {
		t.Fatalf("after Revoke: %v; want approval_required", err)
	}
	if err := e.Revoke(grant.GrantID); !errors.Is(err, ErrUnknown) {
		t.Fatalf("second Revoke = %v", err)
	}
}

// TestNoSiteGrantWithoutOrigin: "for this site" needs a web origin, and is
// never offered for a change of the policy.
func TestNoSiteGrantWithoutOrigin(t *testing.T) {
	for _, req := range []Request{
		{SessionID: "s1", Action: "interact.new_tab", Class: policy.Mutating, Scope: Scope{TabID: 0}},
		{SessionID: "s1", Action: "interact.click", Class: policy.Mutating, Scope: Scope{TabID: 3, Origin: "about:blank"}},
		{SessionID: "s1", Action: "configure.policy", Class: policy.Mutating},
	} {
		e := newEngine(t, nil)
		_, err := e.Require(t.Context(), req, 0)
		re := required(t, err)
		if slices.Contains(re.Request.Offers, Action) {
			t.Errorf("%s on %q is offered a site grant", req.Action, req.Scope.Origin)
		}
		if _, err := e.Approve(re.Request.RequestID, Decision{Kind: Action, Minutes: 5}); !errors.Is(err, ErrNoSiteGrant) {
			t.Errorf("site approval of %s = %v, want ErrNoSiteGrant", req.Action, err)
		}
		if _, err := e.Approve(re.Request.RequestID, Decision{Kind: Session}); !errors.Is(err, ErrNoSiteGrant) {
			t.Errorf("site approval of %s = %v, want ErrNoSiteGrant", req.Action, err)
		}
		if _, err := e.Approve(re.Request.RequestID, Decision{Kind: Once}); err != nil {
			t.Errorf("once approval after a refused site approval: %v", err)
		}
	}
}

// TestTriggersNeverMutate: an automatic trigger can never run a mutating or
// sensitive mode — not with an allow-all policy, not with a live site
// grant — and never asks the user.
func TestTriggersNeverMutate(t *testing.T) {
	allowAll := mustPolicy(t, `{"rules":[{"effect":"allow","class":"*","action":"*","origin":"*"}]}`)
	gateReads := mustPolicy(t, `{"rules":[{"effect":"gate","class":"read_only","action":"*","origin":"*"}]}`)
	read := click()
	read.Action, read.Class = "observe.errors", policy.ReadOnly
	js := click()
	js.Action, js.Class = "interact.execute_js", policy.Sensitive
	tests := []struct {
		name string
		pol  Decider
		req  Request
		ok   bool
	}{
		{"mutating, default policy", nil, click(), false},
		{"mutating, allow-all policy", allowAll, click(), false},
		{"sensitive, allow-all policy", allowAll, js, false},
		{"read-only, default policy", nil, read, true},
		{"read-only the policy gates", gateReads, read, false},
	}
	for _, tt := range tests {
		for _, flag := range []bool{false, true} {
			e := newEngine(t, &Options{Policy: tt.pol})
			events, cancel := e.Subscribe()
			var err error
			if flag {
				r := tt.req
				r.Trigger = true
				_, err = e.Require(t.Context(), r, time.Minute)
			} else {
				_, err = e.RequireForTrigger(t.Context(), tt.req)
			}
			cancel()
			if tt.ok != (err == nil) {
				t.Fatalf("%s (flag %v): err = %v, want ok=%v", tt.name, flag, err, tt.ok)
			}
			if !tt.ok {
				wantReason(t, err, ErrTrigger, CodeTriggerRefused)
			}
			if ev, open := <-events; open || len(e.Pending("")) != 0 {
				t.Fatalf("%s: a trigger asked the user (%+v)", tt.name, ev)
			}
		}
	}
	// A live site grant does not cover a trigger either.
	e, _, _ := siteApproved(t)
	if _, err := e.RequireForTrigger(t.Context(), click()); !errors.Is(err, ErrTrigger) {
		t.Fatalf("trigger under a site grant: %v, want ErrTrigger", err)
	}
	if !errors.Is(ErrTrigger, ErrTrigger) || ErrTrigger.Error() != "approval: automatic triggers may only run read-only modes" {
		t.Fatalf("ErrTrigger says %q", ErrTrigger)
	}
}

// TestPolicyDecides: deny refuses without asking, allow passes without
// asking, a broken policy file fails closed, and nothing pre-approves a
// change of the policy.
func TestPolicyDecides(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(broken, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := mustPolicy(t, `{"rules":[
		{"effect":"allow","class":"*","action":"*","origin":"http://127.0.0.1:*"},
		{"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"}]}`)
	allowAll := mustPolicy(t, `{"rules":[{"effect":"allow","class":"*","action":"*","origin":"*"}]}`)
	req := func(action string, class policy.Class, origin string) Request {
		return Request{SessionID: "s1", Action: action, Class: class, Scope: Scope{TabID: 1, Origin: origin}}
	}
	tests := []struct {
		name string
		pol  Decider
		req  Request
		code string // "" = allowed by policy
	}{
		{"allow on localhost", local, req("interact.click", policy.Mutating, "http://127.0.0.1:5173/app"), ""},
		{"gate elsewhere", local, req("interact.click", policy.Mutating, "https://shop.example"), CodeRequired},
		{"deny js on the bank", local, req("interact.execute_js", policy.Sensitive, "https://online.bank.com"), CodePolicyDenied},
		{"broken file denies mutations", policy.Open(broken), req("interact.click", policy.Mutating, "http://127.0.0.1:1"), CodePolicyUnavailable},
		{"broken file allows reads", policy.Open(broken), req("observe.page", policy.ReadOnly, ""), ""},
		{"broken file gates the fix", policy.Open(broken), req("configure.policy", policy.Mutating, ""), CodeRequired},
		{"allow-all still gates a policy change", allowAll, req("configure.policy", policy.Mutating, ""), CodeRequired},
		{"unclassified", nil, req("interact.click", "", "https://shop.example"), CodeUnclassified},
		{"no session", nil, Request{Action: "interact.click", Class: policy.Mutating}, CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(t, &Options{Policy: tt.pol})
			g, err := e.Require(context.Background(), tt.req, 0)
			if got := Code(err); got != tt.code {
				t.Fatalf("Require = %+v, %v; want code %q", g, err, tt.code)
			}
			if tt.code == "" && g.By != ByPolicy {
				t.Fatalf("grant %+v, want by policy", g)
			}
		})
	}
}

// TestPolicyDenyBeatsSiteGrant: a deny rule added after a site grant wins.
func TestPolicyDenyBeatsSiteGrant(t *testing.T) {
	d := &switchable{p: policy.Default()}
	e := newEngine(t, &Options{Policy: d})
	_, err := e.Require(t.Context(), click(), 0)
	if _, err := e.Approve(required(t, err).Request.RequestID, Decision{Kind: Action, Minutes: 30}); err != nil {
		t.Fatal(err)
	}
	if g, err := e.Require(t.Context(), click(), 0); err != nil || g.By != BySite {
		t.Fatalf("under the grant: %+v, %v", g, err)
	}
	d.p = mustPolicy(t, `{"rules":[{"effect":"deny","class":"*","action":"*","origin":"https://shop.example"}]}`)
	_, err = e.Require(t.Context(), click(), 0)
	wantReason(t, err, ErrPolicyDenied, CodePolicyDenied)
}
