package recorder

import (
	"slices"
	"time"
)

// Who did it: the page reports trusted input, which the agent's interact
// calls (CDP Input.*) produce as much as the user's hand. A report the page
// made while an interact call of the tab's session ran — by the page's
// clock, which is the machine's, not by when the report arrived — is the
// agent's; the export already holds that call. What the user does by hand
// during an agent's call is counted as the agent's too.

// callSlack widens a call's window for clock granularity between the page's
// process and the daemon's.
const callSlack = 25 * time.Millisecond

// Bounds of what is kept per session and in all.
const (
	recentCalls  = 16
	recentWindow = time.Minute
	maxSessions  = 256
)

// calls is one session's interact calls: the running ones' starts and the
// recent ones' windows.
type calls struct {
	running []time.Time
	recent  []window
}

type window struct{ from, to time.Time }

// begin notes an interact call of a session starting now; the returned
// function notes its end.
func (r *Recorder) begin(sid string) func() {
	from := r.cfg.Now()
	r.mu.Lock()
	c := r.calls[sid]
	if c == nil {
		r.pruneCalls(from)
		c = &calls{}
		r.calls[sid] = c
	}
	c.running = append(c.running, from)
	r.mu.Unlock()
	return func() {
		to := r.cfg.Now()
		r.mu.Lock()
		defer r.mu.Unlock()
		if i := slices.Index(c.running, from); i >= 0 {
			c.running = slices.Delete(c.running, i, i+1)
		}
		c.recent = append(c.recent, window{from, to})
		if over := len(c.recent) - recentCalls; over > 0 {
			c.recent = slices.Delete(c.recent, 0, over)
		}
	}
}

// pruneCalls drops idle sessions when too many are kept. Called with r.mu
// held.
func (r *Recorder) pruneCalls(now time.Time) {
	if len(r.calls) < maxSessions {
		return
	}
	for sid, c := range r.calls {
		if len(c.running) == 0 && (len(c.recent) == 0 || now.Sub(c.recent[len(c.recent)-1].to) > recentWindow) {
			delete(r.calls, sid)
		}
	}
}

// agentAt reports whether an interact call of the session ran when the
// page saw something at at (zero: now).
func (r *Recorder) agentAt(sid string, at time.Time) bool {
	if at.IsZero() {
		at = r.cfg.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls[sid]
	if c == nil {
		return false
	}
	for _, from := range c.running {
		if !at.Before(from.Add(-callSlack)) {
			return true
		}
	}
	for _, w := range c.recent {
		if !at.Before(w.from.Add(-callSlack)) && !at.After(w.to.Add(callSlack)) {
			return true
		}
	}
	return false
}
