package approval

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// register adds req as a pending request, or joins the identical pending
// request of the same session (same action, class, scope, target, steps
// and arguments) so a retried call never asks the user twice. joined reports the latter.
func (s *state) register(req Request, now time.Time, o *Options) (r *record, joined bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	n := 0
	for _, p := range s.pending {
		if p.req.SessionID != req.SessionID {
			continue
		}
		if p.req.Action == req.Action && p.req.Class == req.Class && p.req.Scope == req.Scope && p.req.Target == req.Target &&
			p.req.Call == req.Call && slices.Equal(p.req.Steps, req.Steps) {
			return p, true, nil
		}
		n++
	}
	if n >= o.MaxPendingPerSession || len(s.pending) >= o.MaxPending {
		e := newErr(ErrBusy, fmt.Sprintf("%d requests of this session already wait for the user; wait for a decision or let them expire", n))
		return nil, false, e
	}
	req.RequestID, req.CreatedAt, req.ExpiresAt = newID("req_"), now, now.Add(o.PendingTTL)
	req.ApprovalID, req.Trigger = "", false
	r = &record{req: req, done: make(chan struct{})}
	s.pending[req.RequestID] = r
	s.deadline(req.ExpiresAt)
	s.emitLocked(Event{Type: Requested, Time: now, Request: req})
	return r, false, nil
}

// lookupPendingLocked returns the pending request id, or the reason it is
// not pending.
func (s *state) lookupPendingLocked(id string) (*record, error) {
	if r := s.pending[id]; r != nil {
		return r, nil
	}
	if r := s.done[id]; r != nil {
		if r.status == statusExpired {
			return nil, &Error{Reason: ErrExpired, Detail: r.reason, RequestID: id}
		}
		return nil, &Error{Reason: ErrDecided, Detail: "the request was already approved or denied", RequestID: id}
	}
	return nil, &Error{Reason: ErrUnknown, Detail: "no pending request with this id", RequestID: id}
}

// approve records the user's yes: it mints the token and, for a Site
// decision, the site grant, then wakes the waiting call.
func (s *state) approve(id string, d Decision, now time.Time, o *Options) (Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	r, err := s.lookupPendingLocked(id)
	if err != nil {
		return Token{}, err
	}
	switch {
	case d.Kind == Once:
	case d.Kind != Site:
		return Token{}, &Error{Reason: ErrInvalid, Detail: fmt.Sprintf("decision kind %q: want once or site", d.Kind), RequestID: id}
	case !r.req.SiteGrantable:
		return Token{}, &Error{Reason: ErrNoSiteGrant, Detail: "this request has no web origin, or its action must be approved every time; approve once", RequestID: id}
	case d.Minutes < 1 || d.Minutes > o.MaxSiteMinutes:
		return Token{}, &Error{Reason: ErrInvalid, Detail: fmt.Sprintf("site grant of %d minutes: want 1 to %d", d.Minutes, o.MaxSiteMinutes), RequestID: id}
	}
	q := r.req
	tok := Token{
		ApprovalID: newID("apr_"), SessionID: q.SessionID, RequestID: id, Action: q.Action,
		Class: q.Class, Scope: q.Scope, ExpiresAt: now.Add(o.TokenTTL), SingleUse: true, Call: q.Call,
	}
	keep := tok.ExpiresAt.Add(o.TokenTTL)
	s.tokens[tok.ApprovalID] = &tokenRec{tok: tok, keepUntil: keep}
	s.deadline(tok.ExpiresAt)
	if d.Kind == Site {
		s.addGrantLocked(q, time.Duration(d.Minutes)*time.Minute, now, o.MaxGrantsPerSession)
	}
	r.approvalID = tok.ApprovalID
	s.finishLocked(id, r, statusApproved, "", keep)
	s.emitLocked(Event{Type: Approved, Time: now, Request: q, ApprovalID: tok.ApprovalID, Decision: d.String()})
	s.evictLocked(o.MaxHistory)
	return tok, nil
}

// addGrantLocked adds a site grant for q's session, origin and class,
// replacing an existing one for the same triple and, past max grants in
// the session, the one that ends first.
func (s *state) addGrantLocked(q Request, d time.Duration, now time.Time, max int) {
	var mine []*SiteGrant
	for id, g := range s.grants {
		if g.SessionID != q.SessionID {
			continue
		}
		if g.Origin == q.Scope.Origin && g.Class == q.Class {
			delete(s.grants, id)
			continue
		}
		mine = append(mine, g)
	}
	slices.SortFunc(mine, func(a, b *SiteGrant) int { return a.ExpiresAt.Compare(b.ExpiresAt) })
	for len(mine) >= max {
		delete(s.grants, mine[0].GrantID)
		mine = mine[1:]
	}
	g := &SiteGrant{
		GrantID: newID("grt_"), SessionID: q.SessionID, Origin: q.Scope.Origin, Class: q.Class,
		RequestID: q.RequestID, CreatedAt: now, ExpiresAt: now.Add(d),
	}
	s.grants[g.GrantID] = g
	s.deadline(g.ExpiresAt)
}

// deny records the user's no and wakes the waiting call.
func (s *state) deny(id, reason string, now time.Time, o *Options) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	r, err := s.lookupPendingLocked(id)
	if err != nil {
		return err
	}
	if reason = strings.TrimSpace(reason); reason == "" {
		reason = "the user said no"
	}
	s.finishLocked(id, r, statusDenied, reason, now.Add(o.PendingTTL))
	s.emitLocked(Event{Type: Denied, Time: now, Request: r.req, Reason: reason})
	s.evictLocked(o.MaxHistory)
	return nil
}

// revoke ends a site grant early.
func (s *state) revoke(grantID string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grants[grantID]
	if g == nil {
		return &Error{Reason: ErrUnknown, Detail: "no live site grant with this id", ApprovalID: grantID}
	}
	delete(s.grants, grantID)
	s.emitLocked(Event{Type: Expired, Time: now, Request: grantRequest(g), ApprovalID: grantID, Reason: "revoked by the user"})
	return nil
}

// forget drops everything of a session that ended: its pending requests
// expire (waking their calls), its tokens and grants go.
func (s *state) forget(sessionID string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, r := range s.pending {
		if r.req.SessionID == sessionID {
			s.finishLocked(id, r, statusExpired, "the session ended", now)
			s.emitLocked(Event{Type: Expired, Time: now, Request: r.req, Reason: r.reason})
		}
	}
	for id, r := range s.done {
		if r.req.SessionID == sessionID {
			delete(s.done, id)
		}
	}
	for id, t := range s.tokens {
		if t.tok.SessionID == sessionID {
			delete(s.tokens, id)
		}
	}
	for id, g := range s.grants {
		if g.SessionID == sessionID {
			delete(s.grants, id)
			s.emitLocked(Event{Type: Expired, Time: now, Request: grantRequest(g), ApprovalID: id, Reason: "the session ended"})
		}
	}
}

// lists returns copies of the pending requests, live grants and unused
// live tokens of a session ("" = every session), oldest first.
func (s *state) lists(sessionID string, now time.Time) (reqs []Request, grants []SiteGrant, toks []Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	mine := func(sid string) bool { return sessionID == "" || sid == sessionID }
	for _, r := range s.pending {
		if mine(r.req.SessionID) {
			reqs = append(reqs, r.req)
		}
	}
	for _, g := range s.grants {
		if mine(g.SessionID) {
			grants = append(grants, *g)
		}
	}
	for _, t := range s.tokens {
		if mine(t.tok.SessionID) && !t.used && now.Before(t.tok.ExpiresAt) {
			toks = append(toks, t.tok)
		}
	}
	slices.SortFunc(reqs, func(a, b Request) int { return a.CreatedAt.Compare(b.CreatedAt) })
	slices.SortFunc(grants, func(a, b SiteGrant) int { return a.CreatedAt.Compare(b.CreatedAt) })
	slices.SortFunc(toks, func(a, b Token) int { return a.ExpiresAt.Compare(b.ExpiresAt) })
	return reqs, grants, toks
}
