package approval

import (
	"fmt"
	"strings"
	"time"
)

// matchCall checks that a call (session, action, scope, arguments) is the
// one an approval was given for. The session is checked first, so another
// session learns nothing about the approval.
func matchCall(call, want Request) error {
	switch {
	case call.SessionID != want.SessionID:
		return newErr(ErrOtherSession, "the approval belongs to another session")
	case call.Action != want.Action:
		return newErr(ErrOtherAction, fmt.Sprintf("the approval is for %s, this call is %s", want.Action, call.Action))
	case call.Scope.TabID != want.Scope.TabID:
		return newErr(ErrOtherTab, fmt.Sprintf("the approval is for tab %d, this call is on tab %d", want.Scope.TabID, call.Scope.TabID))
	case call.Scope.Origin != want.Scope.Origin:
		return newErr(ErrOtherOrigin, fmt.Sprintf("the approval is for %s, this call is on %s", orNone(want.Scope.Origin), orNone(call.Scope.Origin)))
	case want.Call != "" && call.Call != want.Call:
		return newErr(ErrOtherCall, "the approval covers exactly the call the user was shown, and this call's arguments differ; retry with the same arguments, or call without approval_id to ask the user for this one")
	}
	return nil
}

func orNone(origin string) string {
	if origin == "" {
		return "no origin"
	}
	return origin
}

// checkToken validates a token for a call: session, expiry, single use,
// then action, tab and origin.
func checkToken(t *tokenRec, call Request, now time.Time) error {
	want := tokenRequest(t.tok)
	if call.SessionID != want.SessionID {
		return matchCall(call, want)
	}
	if !now.Before(t.tok.ExpiresAt) {
		return newErr(ErrExpired, "the approval ran out at "+t.tok.ExpiresAt.UTC().Format(time.RFC3339)+"; call again without approval_id to ask anew")
	}
	if t.used {
		return newErr(ErrReplayed, "the approval was already used; each approval runs one call")
	}
	return matchCall(call, want)
}

// redeem resolves id (an approval id, or the request id of an approved or
// pending request) for call. A valid unused token is consumed and a Grant
// returned; a pending request that matches the call is returned for the
// caller to wait on; anything else is an *Error, announced as rejected.
func (s *state) redeem(id string, call Request, now time.Time) (Grant, *record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	g, r, err := s.redeemLocked(id, call, now)
	if err != nil {
		e := err.(*Error)
		ev := call
		ev.RequestID = e.RequestID
		s.emitLocked(Event{Type: Rejected, Time: now, Request: ev, ApprovalID: e.ApprovalID, Reason: e.Error()})
	}
	return g, r, err
}

func (s *state) redeemLocked(id string, call Request, now time.Time) (Grant, *record, error) {
	fail := func(err error, reqID, aprID string) (Grant, *record, error) {
		e := err.(*Error)
		e.RequestID, e.ApprovalID = reqID, aprID
		return Grant{}, nil, e
	}
	if r := s.pending[id]; r != nil {
		if err := matchCall(call, r.req); err != nil {
			return fail(err, id, "")
		}
		return Grant{}, r, nil
	}
	t := s.tokens[id]
	if r := s.done[id]; r != nil {
		switch {
		case call.SessionID != r.req.SessionID:
			return fail(matchCall(call, r.req), id, "")
		case r.status == statusDenied:
			return fail(newErr(ErrDenied, r.reason), id, "")
		case r.status == statusExpired:
			return fail(newErr(ErrExpired, r.reason), id, "")
		}
		if t = s.tokens[r.approvalID]; t == nil {
			return fail(newErr(ErrExpired, "the approval ran out"), id, r.approvalID)
		}
	}
	if t == nil {
		detail := "no approval or request with this id; call again without approval_id to ask the user"
		if !strings.HasPrefix(id, "apr_") && !strings.HasPrefix(id, "req_") {
			detail = "approval ids start with apr_ (request ids with req_); " + detail
		}
		return fail(newErr(ErrUnknown, detail), "", "")
	}
	if err := checkToken(t, call, now); err != nil {
		return fail(err, t.tok.RequestID, t.tok.ApprovalID)
	}
	t.used = true
	s.emitLocked(Event{Type: Consumed, Time: now, Request: tokenRequest(t.tok), ApprovalID: t.tok.ApprovalID, Decision: string(Once)})
	return Grant{By: ByApproval, RequestID: t.tok.RequestID, ApprovalID: t.tok.ApprovalID}, nil, nil
}

// classOf returns the class an id was approved for, if the id is known.
func (s *state) classOf(id string) (Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.pending[id]; r != nil {
		return r.req, true
	}
	if r := s.done[id]; r != nil {
		return r.req, true
	}
	if t := s.tokens[id]; t != nil {
		return tokenRequest(t.tok), true
	}
	return Request{}, false
}

// collect is the outcome for a call that waited on r: its token consumed
// when approved, a live site grant if another call took the token, the
// denial or expiry, or — still pending — a *RequiredError.
func (s *state) collect(r *record, call Request, now time.Time, cause error) (Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	id := r.req.RequestID
	switch r.status {
	case statusPending:
		return Grant{}, &RequiredError{Request: r.req, Cause: cause}
	case statusDenied:
		return Grant{}, &Error{Reason: ErrDenied, Detail: r.reason, RequestID: id}
	case statusExpired:
		return Grant{}, &Error{Reason: ErrExpired, Detail: r.reason, RequestID: id}
	}
	t := s.tokens[r.approvalID]
	if t != nil && !t.used && now.Before(t.tok.ExpiresAt) {
		t.used = true
		s.emitLocked(Event{Type: Consumed, Time: now, Request: r.req, ApprovalID: r.approvalID, Decision: string(Once)})
		return Grant{By: ByApproval, RequestID: id, ApprovalID: r.approvalID}, nil
	}
	if g, ok, _ := s.coverLocked(&call, now); ok {
		return g, nil
	}
	if t == nil || !now.Before(t.tok.ExpiresAt) {
		return Grant{}, &Error{Reason: ErrExpired, Detail: "the approval ran out", RequestID: id, ApprovalID: r.approvalID}
	}
	return Grant{}, &Error{Reason: ErrReplayed, Detail: "another call used this approval; each approval runs one call", RequestID: id, ApprovalID: r.approvalID}
}
