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
			p.req.Call == req.Call && slices.Equal(p.req.Steps, req.Steps) && p.req.tier() == req.tier() && reasonKeys(p.req.reasons()) == reasonKeys(req.reasons()) {
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
	s.countLocked(req.SessionID, cAsked)
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

// approve records the user's yes: it mints the token and, for a grant,
// the grant, or for a plan's request the session's plan; then it wakes
// the waiting call.
func (s *state) approve(id string, d Decision, now time.Time, o *Options) (Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	r, err := s.lookupPendingLocked(id)
	if err != nil {
		return Token{}, err
	}
	if err := checkDecision(&r.req, d, o); err != nil {
		return Token{}, err
	}
	q := r.req
	tok := Token{
		ApprovalID: newID("apr_"), SessionID: q.SessionID, RequestID: id, Action: q.Action,
		Class: q.Class, Scope: q.Scope, ExpiresAt: now.Add(o.TokenTTL), SingleUse: true, Call: q.Call,
	}
	keep := tok.ExpiresAt.Add(o.TokenTTL)
	s.tokens[tok.ApprovalID] = &tokenRec{tok: tok, keepUntil: keep}
	s.deadline(tok.ExpiresAt)
	decision := d.String()
	switch {
	case q.Plan != nil:
		s.setPlanLocked(q, d.Ticks, now)
		decision = fmt.Sprintf("plan:%dm", q.Plan.Minutes)
	case d.Kind == Action:
		s.addGrantLocked(q, Action, time.Duration(d.Minutes)*time.Minute, now, o.MaxGrantsPerSession)
	case d.Kind == Session:
		s.addGrantLocked(q, Session, 0, now, o.MaxGrantsPerSession)
	}
	r.approvalID = tok.ApprovalID
	s.finishLocked(id, r, statusApproved, "", keep)
	s.countLocked(q.SessionID, cApproved)
	s.emitLocked(Event{Type: Approved, Time: now, Request: q, ApprovalID: tok.ApprovalID, Decision: decision, Ticks: d.Ticks})
	s.evictLocked(o.MaxHistory)
	return tok, nil
}

// checkDecision refuses an answer the request did not offer.
func checkDecision(q *Request, d Decision, o *Options) error {
	bad := func(reason error, detail string) error {
		return &Error{Reason: reason, Detail: detail, RequestID: q.RequestID}
	}
	switch {
	case d.Kind != Once && d.Kind != Action && d.Kind != Session:
		return bad(ErrInvalid, fmt.Sprintf("decision kind %q: want once, action (this kind of action on this site for N minutes) or session (the rest of this session on this site)", d.Kind))
	case !offered(q, d.Kind):
		return bad(ErrNoSiteGrant, fmt.Sprintf("this request does not offer %s: a grant never covers a sensitive call, a plan, a change of the guards, another origin, or a call whose effect could not be read (the rest of the session covers medium-risk calls only); approve once", d.Kind))
	case d.Kind == Action && (d.Minutes < 1 || d.Minutes > o.MaxSiteMinutes):
		return bad(ErrInvalid, fmt.Sprintf("a grant of %d minutes: want 1 to %d", d.Minutes, o.MaxSiteMinutes))
	}
	if err := checkTicks(q, d); err != nil {
		return bad(ErrInvalid, err.Error())
	}
	return nil
}

// addGrantLocked adds a grant of kind for q's session and origin (d: how
// long; 0 for the rest of the session), replacing the one of the same
// kind that covers the same calls, and past max grants in the session
// the one that ends first.
func (s *state) addGrantLocked(q Request, kind Kind, d time.Duration, now time.Time, max int) {
	g := &SiteGrant{
		GrantID: newID("grt_"), SessionID: q.SessionID, Kind: kind, Origin: q.Scope.Origin, Class: q.Class,
		Words: grantWords(&q, kind), RequestID: q.RequestID, CreatedAt: now,
	}
	if kind == Action {
		g.Action, g.Reasons, g.ExpiresAt = q.Action, q.reasons(), now.Add(d)
		s.deadline(g.ExpiresAt)
	}
	var mine []*SiteGrant
	for id, h := range s.grants {
		if h.SessionID != q.SessionID {
			continue
		}
		if h.Kind == g.Kind && h.Origin == g.Origin && h.Action == g.Action && reasonKeys(h.Reasons) == reasonKeys(g.Reasons) {
			delete(s.grants, id)
			continue
		}
		mine = append(mine, h)
	}
	slices.SortFunc(mine, func(a, b *SiteGrant) int { return ends(a).Compare(ends(b)) })
	for len(mine) >= max {
		delete(s.grants, mine[0].GrantID)
		mine = mine[1:]
	}
	s.grants[g.GrantID] = g
}

// ends is when a grant ends; one for the rest of the session, last.
func ends(g *SiteGrant) time.Time {
	if g.ExpiresAt.IsZero() {
		return time.Unix(1<<40, 0)
	}
	return g.ExpiresAt
}

func reasonKeys(rs []Reason) string {
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.key()
	}
	slices.Sort(keys)
	return strings.Join(keys, "\x01")
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
	s.countLocked(r.req.SessionID, cRefused)
	s.emitLocked(Event{Type: Denied, Time: now, Request: r.req, Reason: reason})
	s.evictLocked(o.MaxHistory)
	return nil
}

// revoke ends a grant or a plan early.
func (s *state) revoke(id string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revokePlanLocked(id, now) {
		return nil
	}
	g := s.grants[id]
	if g == nil {
		return &Error{Reason: ErrUnknown, Detail: "no live grant or plan with this id", ApprovalID: id}
	}
	delete(s.grants, id)
	s.emitLocked(Event{Type: Expired, Time: now, Request: grantRequest(g), ApprovalID: id, Reason: "revoked by the user"})
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
	if p := s.plans[sessionID]; p != nil {
		delete(s.plans, sessionID)
		s.emitLocked(Event{Type: Expired, Time: now, Request: planRequest(p), ApprovalID: p.PlanID, Reason: "the session ended"})
	}
	delete(s.counts, sessionID)
}

// lists returns copies of the pending requests, live grants, unused
// live tokens and live plans of a session ("" = every session), oldest
// first.
func (s *state) lists(sessionID string, now time.Time) (reqs []Request, grants []SiteGrant, toks []Token, plans []Plan) {
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
	for _, p := range s.plans {
		if mine(p.SessionID) {
			plans = append(plans, *p)
		}
	}
	slices.SortFunc(reqs, func(a, b Request) int { return a.CreatedAt.Compare(b.CreatedAt) })
	slices.SortFunc(grants, func(a, b SiteGrant) int { return a.CreatedAt.Compare(b.CreatedAt) })
	slices.SortFunc(toks, func(a, b Token) int { return a.ExpiresAt.Compare(b.ExpiresAt) })
	slices.SortFunc(plans, func(a, b Plan) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return reqs, grants, toks, plans
}
