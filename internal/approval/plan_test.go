package approval

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// planFor is a plan's request by session s1: clicks and typing on
// https://shop.example for 30 minutes, naming clicks on controls named
// like "delete" (high) for the user to tick.
func planFor() Request {
	return Request{SessionID: "s1", Action: "interact.plan", Class: policy.Mutating, Target: "a plan",
		Plan: &PlanProposal{Summary: "tidy the cart", Origins: []string{"https://shop.example"}, Actions: []string{"click", "type"}, Minutes: 30,
			High: []PlanHigh{{Mode: "click", Kind: RiskNamed, To: "delete", Words: `click controls named like "delete"`}}}}
}

// approvePlan asks for planFor (changed by edit) and approves it with
// ticks, returning the live plan.
func approvePlan(t *testing.T, e *Engine, ticks []int, edit func(*PlanProposal)) Plan {
	t.Helper()
	req := planFor()
	if edit != nil {
		edit(req.Plan)
	}
	_, err := e.Require(t.Context(), req, 0)
	re := required(t, err)
	if offers := re.Request.Offers; len(offers) != 1 || offers[0] != Once {
		t.Fatalf("a plan's request offers %v, want once only", offers)
	}
	if _, err := e.Approve(re.Request.RequestID, Decision{Kind: Once, Ticks: ticks}); err != nil {
		t.Fatal(err)
	}
	ps := e.Plans("s1")
	if len(ps) != 1 {
		t.Fatalf("Plans(s1) = %+v, want one", ps)
	}
	return ps[0]
}

// TestPlanCovers: once approved, the plan lets the session's medium calls
// of the modes it names on its origins run unasked; everything else asks,
// and the prompt says why it is outside the plan.
func TestPlanCovers(t *testing.T) {
	risk := func(rs ...Reason) *Risk { return &Risk{Tier: High, Why: "high", Reasons: rs} }
	tests := []struct {
		name    string
		ticks   []int
		mutate  func(r *Request)
		outside string // "" = covered; else a part of OutsidePlan
	}{
		{"a medium click on its origin", nil, func(r *Request) {}, ""},
		{"another tab of its origin", nil, func(r *Request) { r.Scope.TabID = 9 }, ""},
		{"a mode it does not name", nil, func(r *Request) { r.Action = "interact.select" }, "does not name select"},
		{"a batch of named modes", nil, func(r *Request) { r.Action, r.Modes = "interact.batch", []string{"click", "type"} }, ""},
		{"a batch with another mode", nil, func(r *Request) { r.Action, r.Modes = "interact.batch", []string{"click", "check"} }, "does not name check"},
		{"a call on an origin outside the plan", nil, func(r *Request) { r.Scope.Origin = "https://evil.example" },
			"acts on https://evil.example, which the plan does not name"},
		{"a link to an origin outside the plan", nil, func(r *Request) {
			r.Risk = risk(Reason{Mode: "click", Kind: RiskLeave, To: "https://evil.example", Why: "goes to https://evil.example"})
		}, "goes to https://evil.example, which the plan does not name"},
		{"a form submit to another origin", []int{0}, func(r *Request) {
			r.Risk = risk(Reason{Mode: "click", Kind: RiskSubmit, To: "https://collect.example", Why: "submits form to https://collect.example"})
		}, "high-risk"},
		{"a Delete control, not ticked", nil, func(r *Request) { r.Risk = named("delete") }, `high-risk`},
		{"a Delete control, ticked", []int{0}, func(r *Request) { r.Risk = named("delete") }, ""},
		{"a Pay control, Delete ticked", []int{0}, func(r *Request) { r.Risk = named("pay") }, "high-risk"},
		{"an effect that could not be read", []int{0}, func(r *Request) {
			r.Risk = risk(Reason{Mode: "click", Kind: RiskUnseen, Why: "a click into a frame"})
		}, "could not be read"},
		{"execute_js", nil, func(r *Request) { r.Action, r.Class = "interact.execute_js", policy.Sensitive }, "sensitive"},
		{"upload", nil, func(r *Request) { r.Action, r.Class = "interact.upload", policy.Sensitive }, "sensitive"},
		{"a policy change", nil, func(r *Request) { r.Action, r.Scope = "configure.policy", Scope{} }, "sensitive"},
		{"another session", nil, func(r *Request) { r.SessionID = "s2" }, "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(t, &Options{Clock: newFakeClock()})
			p := approvePlan(t, e, tt.ticks, nil)
			req := click()
			tt.mutate(&req)
			g, err := e.Require(t.Context(), req, 0)
			if tt.outside == "" {
				if err != nil || g.By != ByPlan || g.ApprovalID != p.PlanID {
					t.Fatalf("Require = %+v, %v; want covered by the plan", g, err)
				}
				if got := e.Plans("s1")[0].Covered; got != 1 {
					t.Fatalf("the plan counts %d covered calls, want 1", got)
				}
				return
			}
			re := required(t, err)
			if tt.outside == "-" {
				if re.Request.OutsidePlan != "" {
					t.Fatalf("a session without a plan is told %q", re.Request.OutsidePlan)
				}
				return
			}
			if !strings.Contains(re.Request.OutsidePlan, tt.outside) {
				t.Fatalf("OutsidePlan = %q, want it to say %q", re.Request.OutsidePlan, tt.outside)
			}
		})
	}
}

// TestPlanLeavesForItsOwnOrigins: a navigation or a link to another
// origin the plan names is covered (the user approved those places);
// a wildcard origin covers the registrable domain's subdomains only.
func TestPlanLeavesForItsOwnOrigins(t *testing.T) {
	e := newEngine(t, &Options{Clock: newFakeClock()})
	approvePlan(t, e, nil, func(pp *PlanProposal) {
		pp.Origins = []string{"https://shop.example", "https://*.pay.example"}
		pp.Actions = []string{"click", "navigate"}
	})
	for _, tc := range []struct {
		action, origin, to string
		covered            bool
	}{
		{"interact.navigate", "https://checkout.pay.example", "", true},
		{"interact.navigate", "https://pay.example", "", true},
		{"interact.navigate", "https://pay.example.evil.com", "", false},
		{"interact.navigate", "http://checkout.pay.example", "", false},
		{"interact.click", "https://shop.example", "https://a.pay.example", true},
		{"interact.click", "https://shop.example", "https://evil.example", false},
	} {
		req := click()
		req.Action, req.Scope.Origin = tc.action, tc.origin
		if tc.to != "" {
			req.Risk = &Risk{Tier: High, Reasons: []Reason{{Mode: "click", Kind: RiskLeave, To: tc.to, Why: "goes to " + tc.to}}}
		}
		g, err := e.Require(t.Context(), req, 0)
		if tc.covered != (err == nil && g.By == ByPlan) {
			t.Errorf("%s on %s to %q: %+v, %v; want covered %v", tc.action, tc.origin, tc.to, g, err, tc.covered)
		}
	}
}

// TestPlanOrigin: exact origins, or a wildcard no wider than a
// registrable domain.
func TestPlanOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Shop.Example/":    "https://shop.example",
		"http://127.0.0.1:8888":    "http://127.0.0.1:8888",
		"https://*.example.com":    "https://*.example.com",
		"https://*.a.example.com":  "https://*.a.example.com",
		"https://shop.example:443": "https://shop.example",
	} {
		got, err := PlanOrigin(in)
		if err != nil || got != want {
			t.Errorf("PlanOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"https://*.com", "https://*.co.uk", "https://*.github.io", "http://*.127.0.0.1", "*", "https://*",
		"file:///etc", "javascript:alert(1)", "ftp://x.example", "https://shop.example/cart", "https://a@shop.example", "shop.example", ""} {
		if got, err := PlanOrigin(in); err == nil {
			t.Errorf("PlanOrigin(%q) = %q, want an error", in, got)
		}
	}
	if _, err := PlanOrigin("https://*.co.uk"); !errors.Is(err, ErrWideOrigin) {
		t.Errorf("*.co.uk: %v, want ErrWideOrigin", err)
	}
}

// TestPlanCannotBeWidened: the agent cannot change an approved plan; a new
// plan is a new prompt, and only the user's yes replaces the old one. A
// plan's answers are once (with ticks in range): never a grant.
func TestPlanCannotBeWidened(t *testing.T) {
	e := newEngine(t, &Options{Clock: newFakeClock()})
	old := approvePlan(t, e, nil, nil)
	wider := planFor()
	wider.Plan.Origins = append(wider.Plan.Origins, "https://evil.example")
	_, err := e.Require(t.Context(), wider, 0)
	re := required(t, err)
	for _, d := range []Decision{{Kind: Action, Minutes: 5}, {Kind: Session}, {Kind: Once, Ticks: []int{1}}, {Kind: Once, Ticks: []int{-1}}} {
		if _, err := e.Approve(re.Request.RequestID, d); err == nil {
			t.Errorf("a plan approved with %+v", d)
		}
	}
	evil := click()
	evil.Scope.Origin = "https://evil.example"
	if _, err := e.Require(t.Context(), evil, 0); Code(err) != CodeRequired {
		t.Fatalf("before the user approves the wider plan: %v; want approval_required", err)
	}
	if err := e.Deny(re.Request.RequestID, ""); err != nil {
		t.Fatal(err)
	}
	if ps := e.Plans("s1"); len(ps) != 1 || ps[0].PlanID != old.PlanID {
		t.Fatalf("a denied plan changed the live one: %+v", ps)
	}
	events, cancel := e.Subscribe()
	defer cancel()
	wider.Plan.Summary = "tidy the cart, then pay on evil"
	_, err = e.Require(t.Context(), wider, 0)
	if _, err := e.Approve(required(t, err).Request.RequestID, Decision{Kind: Once}); err != nil {
		t.Fatal(err)
	}
	if ev := skipTo(t, events, Expired); ev.ApprovalID != old.PlanID || ev.Reason != "replaced by a new plan" {
		t.Fatalf("expired event %+v, want the old plan replaced", ev)
	}
	if g, err := e.Require(t.Context(), evil, 0); err != nil || g.By != ByPlan {
		t.Fatalf("after the user approved the wider plan: %+v, %v", g, err)
	}
}

// TestPlanProposalChecked: the engine refuses a plan a person could not
// read in full or that reaches too wide.
func TestPlanProposalChecked(t *testing.T) {
	for name, edit := range map[string]func(*PlanProposal){
		"no summary":   func(p *PlanProposal) { p.Summary = " " },
		"no origin":    func(p *PlanProposal) { p.Origins = nil },
		"wide origin":  func(p *PlanProposal) { p.Origins = []string{"https://*.com"} },
		"no actions":   func(p *PlanProposal) { p.Actions = nil },
		"zero minutes": func(p *PlanProposal) { p.Minutes = 0 },
		"too long":     func(p *PlanProposal) { p.Minutes = 481 },
		"many origins": func(p *PlanProposal) { p.Origins = strings.Split(strings.Repeat("https://a.example ", 11), " ")[:11] },
		"many high":    func(p *PlanProposal) { p.High = make([]PlanHigh, 11) },
	} {
		e := newEngine(t, nil)
		req := planFor()
		edit(req.Plan)
		if _, err := e.Require(t.Context(), req, 0); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// TestPlanRevokedAtOnce: revoking a plan ends it before its time; the next
// call it covered asks.
func TestPlanRevokedAtOnce(t *testing.T) {
	e := newEngine(t, &Options{Clock: newFakeClock()})
	p := approvePlan(t, e, nil, nil)
	if g, err := e.Require(t.Context(), click(), 0); err != nil || g.By != ByPlan {
		t.Fatalf("before revoke: %+v, %v", g, err)
	}
	if err := e.Revoke(p.PlanID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Require(t.Context(), click(), 0); Code(err) != CodeRequired {
		t.Fatalf("after revoke: %v; want approval_required", err)
	}
	if err := e.Revoke(p.PlanID); !errors.Is(err, ErrUnknown) {
		t.Fatalf("revoking twice: %v; want ErrUnknown", err)
	}
}

// TestPlanExpiresOnTime: in a synctest bubble (the engine's real clock,
// fake time), the plan covers calls until its minutes pass and Run
// announces its end at that moment; the next call asks.
func TestPlanExpiresOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEngine(t, nil)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- e.Run(ctx) }()
		p := approvePlan(t, e, nil, nil)
		events, stop := e.Subscribe()
		defer stop()
		time.Sleep(30*time.Minute - time.Second)
		if g, err := e.Require(t.Context(), click(), 0); err != nil || g.By != ByPlan {
			t.Fatalf("a second before the end: %+v, %v", g, err)
		}
		skipTo(t, events, Consumed)
		start := time.Now()
		time.Sleep(time.Second)
		synctest.Wait()
		ev := skipTo(t, events, Expired)
		if ev.ApprovalID != p.PlanID || ev.Reason != "the plan ran out" || ev.Time.Sub(start) > time.Second {
			t.Fatalf("expired event %+v at +%s, want the plan's end within the sweep", ev, ev.Time.Sub(start))
		}
		if _, err := e.Require(t.Context(), click(), 0); Code(err) != CodeRequired {
			t.Fatalf("after the end: %v; want approval_required", err)
		}
		cancel()
		<-done
	})
}

// TestPlanEndsWithItsSession: Forget drops the session's plan.
func TestPlanEndsWithItsSession(t *testing.T) {
	e := newEngine(t, &Options{Clock: newFakeClock()})
	approvePlan(t, e, nil, nil)
	e.Forget("s1")
	if len(e.Plans("")) != 0 {
		t.Fatal("the session ended and its plan lives on")
	}
}

// TestCountsPerSession: calls made, asked, covered by a plan or a grant,
// allowed by the policy, approved, refused — per session and in total;
// a retry with approval_id is the same call.
func TestCountsPerSession(t *testing.T) {
	e := newEngine(t, &Options{Clock: newFakeClock()})
	approvePlan(t, e, nil, nil) // call 1: asked, approved
	for range 3 {               // calls 2-4: the plan
		if _, err := e.Require(t.Context(), click(), 0); err != nil {
			t.Fatal(err)
		}
	}
	js := click()
	js.Action, js.Class = "interact.execute_js", policy.Sensitive
	_, err := e.Require(t.Context(), js, 0) // call 5: asked, approved, retried
	id := required(t, err).Request.RequestID
	tok, err := e.Approve(id, Decision{Kind: Once})
	if err != nil {
		t.Fatal(err)
	}
	js.ApprovalID = tok.ApprovalID
	if _, err := e.Require(t.Context(), js, 0); err != nil {
		t.Fatal(err)
	}
	other := click()
	other.Scope.Origin = "https://bank.example"
	_, err = e.Require(t.Context(), other, 0) // call 6: asked, denied
	if err := e.Deny(required(t, err).Request.RequestID, ""); err != nil {
		t.Fatal(err)
	}
	e.PolicyDecided("s1", nil) // call 7: the policy allowed it
	want := Counts{Calls: 7, Asked: 3, ByPlan: 3, ByPolicy: 1, Approved: 2, Refused: 1}
	if got := e.Counts("s1"); got != want {
		t.Fatalf("Counts(s1) = %+v, want %+v", got, want)
	}
	e.Forget("s1")
	if got := e.Counts("s1"); got != (Counts{}) {
		t.Fatalf("a forgotten session still counts %+v", got)
	}
	if got := e.Counts(""); got != want {
		t.Fatalf("the total = %+v, want %+v (ended sessions included)", got, want)
	}
}
