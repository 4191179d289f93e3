package approval

import (
	"slices"
	"sync"
	"time"
)

// status is where a request stands.
type status int

const (
	statusPending status = iota
	statusApproved
	statusDenied
	statusExpired
)

// record is one request and its outcome.
type record struct {
	req        Request
	status     status
	approvalID string        // statusApproved: the minted token
	reason     string        // statusDenied / statusExpired: why
	done       chan struct{} // closed when the request leaves statusPending
	keepUntil  time.Time     // decided records are dropped after this
}

// tokenRec is a minted token and whether it was used.
type tokenRec struct {
	tok         Token
	used        bool
	expiredSent bool      // the expired event went out
	keepUntil   time.Time // remembered until then, so a late retry hears "expired" or "replayed", not "unknown"
}

// state is all the engine's mutable data, behind one lock. Every method
// takes the lock itself (the *Locked helpers expect it held), sweeps what
// has run out first, and emits events in order while holding the lock.
type state struct {
	mu       sync.Mutex
	pending  map[string]*record    // request id → request awaiting a decision
	done     map[string]*record    // request id → decided or expired request, kept for retries
	tokens   map[string]*tokenRec  // approval id → token
	grants   map[string]*SiteGrant // grant id → live site grant
	history  []string              // request ids in the order they left pending (eviction order)
	subs     map[*subscriber]struct{}
	next     time.Time     // earliest deadline: nothing to sweep before it
	retain   time.Duration // how long an expired request is remembered for retries
	maxDone  int           // bounds done (MaxHistory): applied by decisions and by sweeps that expire requests
	observer func(Event)
}

func newState(observer func(Event), retain time.Duration, maxDone int) *state {
	return &state{
		pending: map[string]*record{}, done: map[string]*record{}, tokens: map[string]*tokenRec{},
		grants: map[string]*SiteGrant{}, subs: map[*subscriber]struct{}{}, retain: retain, maxDone: maxDone, observer: observer,
	}
}

// subscriber is one Subscribe channel.
type subscriber struct{ ch chan Event }

// emitLocked delivers e to the observer and every subscriber without
// blocking: a subscriber whose buffer is full is dropped (its channel is
// closed) so a stuck panel can never stall approvals.
func (s *state) emitLocked(e Event) {
	if s.observer != nil {
		func() {
			defer func() { _ = recover() }() // an observer bug must not take the engine down
			s.observer(e)
		}()
	}
	for sub := range s.subs {
		select {
		case sub.ch <- e:
		default:
			delete(s.subs, sub)
			close(sub.ch)
		}
	}
}

// deadline lowers the next sweep time to t.
func (s *state) deadline(t time.Time) {
	if s.next.IsZero() || t.Before(s.next) {
		s.next = t
	}
}

// sweepLocked expires pending requests, tokens and grants whose time has
// come and drops decided records past their retention. It does nothing
// before the earliest known deadline.
func (s *state) sweepLocked(now time.Time) {
	if s.next.IsZero() || now.Before(s.next) {
		return
	}
	s.next = time.Time{}
	for id, r := range s.pending {
		if !now.Before(r.req.ExpiresAt) {
			s.finishLocked(id, r, statusExpired, "nobody decided in time", now.Add(s.retain))
			s.emitLocked(Event{Type: Expired, Time: now, Request: r.req, Reason: r.reason})
		} else {
			s.deadline(r.req.ExpiresAt)
		}
	}
	for id, t := range s.tokens {
		switch {
		case !now.Before(t.keepUntil):
			delete(s.tokens, id)
		case !now.Before(t.tok.ExpiresAt) && !t.used && !t.expiredSent:
			t.expiredSent = true
			s.emitLocked(Event{Type: Expired, Time: now, Request: tokenRequest(t.tok), ApprovalID: id, Reason: "the approval was never used"})
			s.deadline(t.keepUntil)
		case now.Before(t.tok.ExpiresAt) && !t.used:
			s.deadline(t.tok.ExpiresAt)
		default:
			s.deadline(t.keepUntil)
		}
	}
	for id, g := range s.grants {
		if !now.Before(g.ExpiresAt) {
			delete(s.grants, id)
			s.emitLocked(Event{Type: Expired, Time: now, Request: grantRequest(g), ApprovalID: id, Reason: "the site grant ran out"})
		} else {
			s.deadline(g.ExpiresAt)
		}
	}
	for id, r := range s.done {
		if !now.Before(r.keepUntil) {
			delete(s.done, id)
		} else {
			s.deadline(r.keepUntil)
		}
	}
	s.history = slices.DeleteFunc(s.history, func(id string) bool { return s.done[id] == nil })
	s.evictLocked(s.maxDone)
}

// finishLocked moves a pending request to a final status and wakes its
// waiters.
func (s *state) finishLocked(id string, r *record, st status, reason string, keepUntil time.Time) {
	delete(s.pending, id)
	r.status, r.reason, r.keepUntil = st, reason, keepUntil
	close(r.done)
	s.done[id] = r
	s.history = append(s.history, id)
	s.deadline(keepUntil)
}

// evictLocked drops the oldest decided records (and their tokens) beyond
// max: a retry with such an id is then "unknown", still refused.
func (s *state) evictLocked(max int) {
	for len(s.done) > max && len(s.history) > 0 {
		id := s.history[0]
		s.history = s.history[1:]
		if r := s.done[id]; r != nil {
			delete(s.done, id)
			delete(s.tokens, r.approvalID)
		}
	}
}

// coveringGrantLocked returns the live site grant that covers req, if any.
func (s *state) coveringGrantLocked(req Request, now time.Time) *SiteGrant {
	if !req.SiteGrantable {
		return nil
	}
	for _, g := range s.grants {
		if g.SessionID == req.SessionID && g.Origin == req.Scope.Origin && g.Class == req.Class && now.Before(g.ExpiresAt) {
			return g
		}
	}
	return nil
}

// useGrant lets req through on a live site grant.
func (s *state) useGrant(req Request, now time.Time) (Grant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	g := s.coveringGrantLocked(req, now)
	if g == nil {
		return Grant{}, false
	}
	s.emitLocked(Event{Type: Consumed, Time: now, Request: req, ApprovalID: g.GrantID, Decision: string(Site)})
	return Grant{By: BySite, RequestID: g.RequestID, ApprovalID: g.GrantID}, true
}

// tokenRequest and grantRequest describe a token or grant as a Request for
// events.
func tokenRequest(t Token) Request {
	return Request{RequestID: t.RequestID, SessionID: t.SessionID, Action: t.Action, Class: t.Class, Scope: t.Scope, Call: t.Call}
}

func grantRequest(g *SiteGrant) Request {
	return Request{RequestID: g.RequestID, SessionID: g.SessionID, Class: g.Class, Scope: Scope{Origin: g.Origin}}
}

// subscribe adds a subscriber with a buffer of n events.
func (s *state) subscribe(n int) (<-chan Event, func()) {
	sub := &subscriber{ch: make(chan Event, n)}
	s.mu.Lock()
	s.subs[sub] = struct{}{}
	s.mu.Unlock()
	var once sync.Once
	return sub.ch, func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if _, ok := s.subs[sub]; ok {
				delete(s.subs, sub)
				close(sub.ch)
			}
		})
	}
}
