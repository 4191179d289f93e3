// Package approval is Gasoline's approval engine: the user's yes between
// an agent and any change to the browser (SAFETY.md, "Approval engine").
//
// The dispatcher calls Require for every call. The policy decides first
// (allow, gate or deny); a gated call passes at once when a live site
// grant covers it, or becomes a pending Request that is announced to
// subscribers (the agent panel) and waits up to its
// budget. The user decides with Approve (once, or for this site for N
// minutes) or Deny, from the panel or `gasoline-host approve|deny`. An
// approval mints a single-use Token scoped to (session, action, tab,
// origin) that expires; the waiting call consumes it at once. A call whose
// budget passes gets a *RequiredError, and the agent retries with
// approval_id, which Require (or Redeem) validates.
//
// Automatic triggers (agent_watch) set Request.Trigger, or call
// RequireForTrigger: they may run only read-only modes the policy allows.
//
// All state lives in one locked struct; the engine starts no goroutine of
// its own except Run, which the daemon owns. Every wait selects on ctx.
package approval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// Decider evaluates the approval policy. *policy.Store (the live file) and
// *policy.Policy both implement it. A non-nil error with a deny means the
// policy is unavailable: the call is refused and the error says why.
type Decider interface {
	Evaluate(class policy.Class, action, origin string) (policy.Effect, policy.Rule, error)
}

// Options configures an Engine. The zero value is usable; New fills the
// documented defaults.
type Options struct {
	Policy Decider // default: policy.Default() (read_only allow, mutating and sensitive gate)
	Clock  Clock   // default: SystemClock

	PendingTTL           time.Duration // how long a request waits for the user; default 5m
	TokenTTL             time.Duration // how long an approval stays redeemable; default 5m
	MaxSiteMinutes       int           // longest "approve for this site"; default 480 (8h)
	MaxPendingPerSession int           // default 32
	MaxPending           int           // all sessions; default 1024
	MaxGrantsPerSession  int           // default 64
	MaxHistory           int           // decided requests kept for retries; default 4096
	SubscriberBuffer     int           // events buffered per subscriber; default 64
	SweepInterval        time.Duration // Run's period; default 1s

	// Observer, when set, receives every event in order (the audit log).
	// It is called with the engine's lock held: it must be quick and must
	// not call back into the Engine. A panic in it is recovered.
	Observer func(Event)
}

// Engine is the approval engine. Create it with New; it is safe for
// concurrent use.
type Engine struct {
	opts Options
	st   *state
}

// New returns an Engine. It copies opts (nil means all defaults) and
// rejects negative limits.
func New(opts *Options) (*Engine, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.PendingTTL < 0 || o.TokenTTL < 0 || o.SweepInterval < 0 || o.MaxSiteMinutes < 0 ||
		o.MaxPendingPerSession < 0 || o.MaxPending < 0 || o.MaxGrantsPerSession < 0 || o.MaxHistory < 0 || o.SubscriberBuffer < 0 {
		return nil, errors.New("approval: negative duration or limit in Options")
	}
	if o.Policy == nil {
		o.Policy = policy.Default()
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	defDur(&o.PendingTTL, 5*time.Minute)
	defDur(&o.TokenTTL, 5*time.Minute)
	defDur(&o.SweepInterval, time.Second)
	def(&o.MaxSiteMinutes, 480)
	def(&o.MaxPendingPerSession, 32)
	def(&o.MaxPending, 1024)
	def(&o.MaxGrantsPerSession, 64)
	def(&o.MaxHistory, 4096)
	def(&o.SubscriberBuffer, 64)
	return &Engine{opts: o, st: newState(o.Observer, o.PendingTTL, o.MaxHistory)}, nil
}

// Require decides whether the call described by req may run now. In
// order: an automatic trigger (req.Trigger) asking for a mutating or
// sensitive mode is refused (ErrTrigger); the policy may deny (ErrPolicyDenied,
// or ErrPolicy when the policy file is broken) or allow (Grant ByPolicy);
// a call retried with req.ApprovalID is validated against that approval
// (or waits on its still-pending request); a live site grant lets it
// through (BySite). Otherwise a request is registered (or the identical
// pending one joined), announced, and awaited for up to budget: approved
// → its token is consumed (ByApproval); denied → ErrDenied; budget, ctx or
// request lifetime over → *RequiredError (the request stays pending).
//
// req.Scope.Origin may be an origin or the page URL; it is canonicalized.
func (e *Engine) Require(ctx context.Context, req Request, budget time.Duration) (Grant, error) {
	if err := e.prepare(&req); err != nil {
		return Grant{}, err
	}
	c := call{Request: req}
	if err := e.checkPolicy(&c); err != nil {
		return Grant{}, err
	}
	if !c.gated {
		return Grant{By: ByPolicy, Rule: c.rule}, nil
	}
	now := e.opts.Clock.Now()
	if req.ApprovalID != "" {
		g, r, err := e.st.redeem(req.ApprovalID, req, now)
		if err != nil || r == nil {
			return g, err
		}
		return e.wait(ctx, r, req, budget)
	}
	if g, ok := e.st.useGrant(req, now); ok {
		return g, nil
	}
	r, _, err := e.st.register(req, now, &e.opts)
	if err != nil {
		return Grant{}, err
	}
	return e.wait(ctx, r, req, budget)
}

// Gates reports whether Require would look further than the policy for
// req (a grant, an approval, or the user): false when the policy allows
// it outright, and the policy's refusal as Require would return it. It
// reads req's class, action and scope only, so a caller can leave out
// what only a prompt shows (Target, Steps) until it is needed.
func (e *Engine) Gates(req Request) (bool, error) {
	if err := e.prepare(&req); err != nil {
		return false, err
	}
	c := call{Request: req}
	if err := e.checkPolicy(&c); err != nil {
		return false, err
	}
	return c.gated, nil
}

// RequireForTrigger is Require for an automatic trigger (agent_watch): it
// never asks the user and never waits. Only a read-only mode the policy
// allows outright may run; anything else is refused with ErrTrigger.
func (e *Engine) RequireForTrigger(ctx context.Context, req Request) (Grant, error) {
	req.Trigger = true
	return e.Require(ctx, req, 0)
}

// call is a Request with the policy's verdict.
type call struct {
	Request
	gated bool   // the policy gates it
	rule  string // the deciding rule
}

// prepare validates and canonicalizes req.
func (e *Engine) prepare(req *Request) error {
	switch {
	case !req.Class.Valid():
		return newErr(ErrUnclassified, fmt.Sprintf("class %q of %s: want read_only, mutating or sensitive; refused", req.Class, req.Action))
	case req.SessionID == "" || req.Action == "":
		return newErr(ErrInvalid, "session and action are required")
	case len(req.Detail) > MaxDetail:
		return newErr(ErrInvalid, fmt.Sprintf("the detail of %s is %d bytes, more than the %d a prompt shows whole; refused rather than cut", req.Action, len(req.Detail), MaxDetail))
	}
	req.Scope = req.Scope.canonical()
	req.Target, req.Reason, req.PageWarning = capText(req.Target), capText(req.Reason), capText(req.PageWarning)
	req.Describe, req.DetailLabel = capText(req.Describe), capText(req.DetailLabel)
	req.Steps, req.Notes = capAll(req.Steps), capAll(req.Notes)
	if req.Page != nil {
		req.Page = &Page{Title: capText(req.Page.Title), URL: capText(req.Page.URL)}
	}
	_, oerr := policy.ParseOrigin(req.Scope.Origin)
	// Site grants never cover a sensitive call (a script, an upload): each
	// one is shown and approved alone.
	req.SiteGrantable = oerr == nil && !policy.AlwaysAsk(req.Action) && req.Class != policy.Sensitive
	return nil
}

// capAll caps each line of a list (a copy; nil stays nil).
func capAll(lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, s := range lines {
		out[i] = capText(s)
	}
	return out
}

// MaxText caps Request.Target, Reason, PageWarning and each step and note
// (bytes): they are shown to the user, kept in memory and written to the
// audit log. The whole of a call that does not fit goes in Detail.
const MaxText = 1024

// MaxDetail bounds Request.Detail (bytes): execute_js refuses a longer
// script before anything is asked, since a prompt never summarises.
const MaxDetail = 32 << 10

func capText(s string) string {
	if len(s) <= MaxText {
		return s
	}
	n := MaxText - len("…")
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// checkPolicy applies the trigger rule and the policy to req, recording
// whether it is gated. A nil error with gated false means allowed.
func (e *Engine) checkPolicy(req *call) error {
	if req.Trigger && req.Class != policy.ReadOnly {
		return newErr(ErrTrigger, fmt.Sprintf("%s is %s; automatic triggers never change the browser", req.Action, req.Class))
	}
	eff, rule, perr := e.opts.Policy.Evaluate(req.Class, req.Action, req.Scope.Origin)
	if eff == policy.Allow && req.Class.Gated() && policy.AlwaysAsk(req.Action) {
		eff = policy.Gate // defence in depth: no Decider may pre-approve loosening the guards
	}
	req.rule = rule.String()
	switch eff {
	case policy.Allow:
		return nil
	case policy.Gate:
		if req.Trigger {
			return newErr(ErrTrigger, fmt.Sprintf("the policy gates %s (%s) and automatic triggers never ask the user", req.Action, req.rule))
		}
		req.gated = true
		return nil
	}
	if perr != nil {
		return newErr(ErrPolicy, perr.Error())
	}
	return newErr(ErrPolicyDenied, fmt.Sprintf("%s on %s is refused by the %s", req.Action, orNone(req.Scope.Origin), req.rule))
}

// wait blocks until r is decided, budget passes, r's own lifetime ends or
// ctx is done, then collects the outcome.
func (e *Engine) wait(ctx context.Context, r *record, c Request, budget time.Duration) (Grant, error) {
	if d := min(budget, r.req.ExpiresAt.Sub(e.opts.Clock.Now())); d > 0 {
		t := e.opts.Clock.NewTimer(d)
		defer t.Stop()
		select {
		case <-r.done:
		case <-t.C():
		case <-ctx.Done():
		}
	}
	return e.st.collect(r, c, e.opts.Clock.Now(), ctx.Err())
}
