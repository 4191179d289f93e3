package approval

import (
	"context"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// Approve records the user's yes for a pending request and returns the
// minted token (its ApprovalID is what `gasoline-host approve` prints). A
// waiting call resumes and consumes it; otherwise the agent redeems it by
// retrying with approval_id. Decision Action also grants the request's
// session this kind of action on this origin for Minutes, Decision
// Session the session's medium-risk calls on this origin until it ends;
// each needs a request that offers it (Request.Offers; ErrNoSiteGrant
// otherwise). Approving a plan's request (kind once, with the high-risk
// items ticked) makes it the session's plan. Unknown, expired or already
// decided requests are errors (ErrUnknown, ErrExpired, ErrDecided).
//
// Only the user may call this (the panel, the terminal): never expose it
// to an agent.
func (e *Engine) Approve(requestID string, d Decision) (Token, error) {
	return e.st.approve(requestID, d, e.opts.Clock.Now(), &e.opts)
}

// Deny records the user's no for a pending request; the waiting call (or
// the agent's retry) gets ErrDenied with reason (default "the user said no").
func (e *Engine) Deny(requestID, reason string) error {
	return e.st.deny(requestID, reason, e.opts.Clock.Now(), &e.opts)
}

// Redeem validates and consumes an approval for call (its SessionID,
// Action, Scope and Call are compared). approvalID is a token's id (apr_…)
// or the id of the request it was approved on (req_…). Rejections are
// *Error with reason ErrUnknown, ErrOtherSession, ErrExpired, ErrReplayed,
// ErrOtherAction, ErrOtherTab, ErrOtherOrigin or ErrOtherCall (or
// ErrDenied for a denied request, ErrPending for one not yet decided,
// ErrPolicyDenied when the policy now denies the call). Require does the
// same when Request.ApprovalID is set, and also waits on a pending request.
func (e *Engine) Redeem(approvalID string, req Request) error {
	sessionID := req.SessionID
	c := Request{SessionID: sessionID, Action: req.Action, Scope: req.Scope.canonical(), Call: req.Call}
	if q, ok := e.st.classOf(approvalID); ok && q.SessionID == sessionID {
		cc := call{Request: c}
		cc.Class = q.Class
		if err := e.checkPolicy(&cc); err != nil {
			return err
		}
	}
	_, r, err := e.st.redeem(approvalID, c, e.opts.Clock.Now())
	if err == nil && r != nil {
		return &Error{Reason: ErrPending, Detail: "the user has not decided yet; retry with the same approval_id to wait for the decision", RequestID: approvalID}
	}
	return err
}

// Revoke ends a grant or a plan (by its grt_ or pln_ id) before its time:
// the panel's and the CLI's "revoke". The next call it covered asks.
func (e *Engine) Revoke(id string) error { return e.st.revoke(id, e.opts.Clock.Now()) }

// Forget drops a session that ended: its pending requests expire (their
// waiting calls return ErrExpired), its tokens and site grants go.
func (e *Engine) Forget(sessionID string) { e.st.forget(sessionID, e.opts.Clock.Now()) }

// Pending lists the requests of a session ("" = all sessions) that wait
// for the user, oldest first: observe {what:"approvals"}, the panel and
// the terminal read it.
func (e *Engine) Pending(sessionID string) []Request {
	r, _, _, _ := e.st.lists(sessionID, e.opts.Clock.Now())
	return r
}

// Grants lists the live site grants of a session ("" = all sessions).
func (e *Engine) Grants(sessionID string) []SiteGrant {
	_, g, _, _ := e.st.lists(sessionID, e.opts.Clock.Now())
	return g
}

// Plans lists the live plans of a session ("" = all sessions); a session
// has one at most.
func (e *Engine) Plans(sessionID string) []Plan {
	_, _, _, p := e.st.lists(sessionID, e.opts.Clock.Now())
	return p
}

// Counts is how a session's gated calls went ("" = all sessions since
// the engine started).
func (e *Engine) Counts(sessionID string) Counts { return e.st.countsOf(sessionID) }

// AllCounts is every live session's Counts, by session id.
func (e *Engine) AllCounts() map[string]Counts { return e.st.allCounts() }

// Tokens lists a session's approvals that are minted, unused and live
// ("" = all sessions): observe {what:"approvals"} shows their approval_id
// so the agent can retry with it.
func (e *Engine) Tokens(sessionID string) []Token {
	_, _, t, _ := e.st.lists(sessionID, e.opts.Clock.Now())
	return t
}

// Subscribe returns a channel of every event from now on, and its cancel
// (idempotent; it closes the channel). A subscriber that falls more than
// Options.SubscriberBuffer events behind is dropped: its channel closes,
// and it should subscribe again and re-read Pending.
func (e *Engine) Subscribe() (<-chan Event, func()) { return e.st.subscribe(e.opts.SubscriberBuffer) }

// Run expires requests, tokens and grants on time (announcing them) until
// ctx ends; without it they expire lazily on the next engine call. The
// daemon runs it in a goroutine it owns.
func (e *Engine) Run(ctx context.Context) error {
	for {
		t := e.opts.Clock.NewTimer(e.opts.SweepInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		}
		e.sweep()
	}
}

func (e *Engine) sweep() {
	e.st.mu.Lock()
	defer e.st.mu.Unlock()
	e.st.sweepLocked(e.opts.Clock.Now())
}

var _ Decider = (*policy.Store)(nil)
var _ Decider = (*policy.Policy)(nil)
