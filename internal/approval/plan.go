package approval

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// A plan is what an agent means to do on a few sites, approved once
// (interact plan): until it ends, the session's medium-risk calls of the
// modes it names on the origins it names run without asking; a high-risk
// call runs only when the plan named exactly that risk and the user
// ticked it; a sensitive call always asks. A call outside the plan asks,
// and its prompt says why (Request.OutsidePlan). A plan is never widened:
// a new one is a new prompt, and approving it replaces the old.

// PlanProposal is a plan as the agent proposes it and the user sees it.
type PlanProposal struct {
	Summary string     `json:"intent"`  // the agent's words (interact plan's intent)
	Origins []string   `json:"origins"` // exact origins, or https://*.<registrable domain>
	Actions []string   `json:"actions"` // interact modes
	Minutes int        `json:"minutes"`
	High    []PlanHigh `json:"high,omitempty"`
}

// PlanHigh is one high-risk kind of action a plan names; it is covered
// only if the user ticks it.
type PlanHigh struct {
	Mode  string `json:"what"`
	Kind  string `json:"risk"`             // RiskSubmit, RiskDownload or RiskNamed
	To    string `json:"target,omitempty"` // the origin (submit, download; "" any of the plan's) or the word (named)
	Words string `json:"words"`            // in words, for the prompt
}

// Plan is a session's approved plan.
type Plan struct {
	PlanID    string `json:"plan_id"`
	SessionID string `json:"session_id"`
	RequestID string `json:"request_id"` // the request it was approved on
	PlanProposal
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	Covered   int       `json:"covered"` // calls it let run without asking
}

// MaxPlanOrigins and MaxPlanHigh bound a plan: a person reads all of it.
const (
	MaxPlanOrigins = 10
	MaxPlanHigh    = 10
)

// ErrWideOrigin refuses a plan origin wider than one registrable domain.
var ErrWideOrigin = errors.New("approval: plan origin wider than a registrable domain")

// PlanOrigin checks and canonicalises one origin of a plan: an exact web
// origin (http or https; "https://shop.example", "http://127.0.0.1:8888"),
// or "scheme://*.domain[:port]" where domain is a registrable domain or
// under one (https://*.example.com, never https://*.com or *.co.uk, never
// an IP address).
func PlanOrigin(s string) (string, error) {
	s = strings.TrimSpace(s)
	scheme, rest, ok := strings.Cut(s, "://")
	rest = strings.TrimSuffix(rest, "/")
	if !ok || rest == "" || strings.ContainsAny(rest, "/?#@\\") {
		return "", fmt.Errorf("origin %q: want scheme://host[:port] and nothing more, e.g. https://shop.example", s)
	}
	wild := strings.HasPrefix(rest, "*.")
	o, err := policy.ParseOrigin(scheme + "://" + strings.TrimPrefix(rest, "*."))
	if err != nil {
		return "", fmt.Errorf("origin %q: want scheme://host[:port], e.g. https://shop.example", s)
	}
	if o.Scheme != "http" && o.Scheme != "https" {
		return "", fmt.Errorf("origin %q: a plan covers http and https pages only", s)
	}
	if !wild {
		return o.String(), nil
	}
	if net.ParseIP(o.Host) != nil {
		return "", fmt.Errorf("%w: %q (no wildcard over an IP address)", ErrWideOrigin, s)
	}
	if _, err := publicsuffix.EffectiveTLDPlusOne(o.Host); err != nil {
		return "", fmt.Errorf("%w: %q (%s is a public suffix; name the site: *.example.com)", ErrWideOrigin, s, o.Host)
	}
	return strings.Replace(o.String(), "://", "://*.", 1), nil
}

// originIn reports whether origin (canonical) is one of the plan's.
func originIn(origins []string, origin string) bool {
	o, err := policy.ParseOrigin(origin)
	if err != nil || origin == "" {
		return false
	}
	for _, p := range origins {
		if p == o.String() {
			return true
		}
		scheme, host, ok := strings.Cut(p, "://*.")
		if !ok {
			continue
		}
		w, err := policy.ParseOrigin(scheme + "://" + host)
		if err == nil && w.Scheme == o.Scheme && w.Port == o.Port && (o.Host == w.Host || strings.HasSuffix(o.Host, "."+w.Host)) {
			return true
		}
	}
	return false
}

// miss is why p does not cover req, or "" when it does.
func (p *Plan) miss(req *Request) string {
	if req.tier() == Sensitive {
		return fmt.Sprintf("%s is sensitive: a plan never covers a script, an upload or a change of the guards; each is shown and approved alone", req.Action)
	}
	mode, ok := strings.CutPrefix(req.Action, "interact.")
	if !ok || req.Plan != nil {
		return fmt.Sprintf("a plan covers page actions (interact) only, not %s", req.Action)
	}
	modes := req.Modes
	if len(modes) == 0 {
		modes = []string{mode}
	}
	for _, m := range modes {
		if !slices.Contains(p.Actions, m) {
			return fmt.Sprintf("the plan does not name %s (it names %s)", m, strings.Join(p.Actions, ", "))
		}
	}
	if !originIn(p.Origins, req.Scope.Origin) {
		verb := "acts on"
		if mode == "navigate" || mode == "new_tab" {
			verb = "goes to"
		}
		return fmt.Sprintf("it %s %s, which the plan does not name (it names %s)", verb, orNone(req.Scope.Origin), strings.Join(p.Origins, ", "))
	}
	for _, r := range req.reasons() {
		if why := p.missReason(r); why != "" {
			return why
		}
	}
	return ""
}

// missReason is why p does not cover one high risk, or "".
func (p *Plan) missReason(r Reason) string {
	switch r.Kind {
	case RiskUnseen:
		return "what it does could not be read from the page (" + r.Why + "), and a plan never covers that"
	case RiskLeave:
		if originIn(p.Origins, r.To) {
			return "" // the plan's origins are the places the user approved
		}
		return fmt.Sprintf("it %s, which the plan does not name", r.Why)
	}
	for _, h := range p.High {
		if h.Mode != r.Mode || h.Kind != r.Kind {
			continue
		}
		switch {
		case r.Kind == RiskNamed && strings.EqualFold(h.To, r.To):
			return ""
		case r.Kind != RiskNamed && originIn(p.Origins, r.To) && (h.To == "" || h.To == policy.CanonicalOrigin(r.To)):
			return ""
		}
	}
	return fmt.Sprintf("it is high-risk (%s) and the plan does not name that", r.Why)
}

// planRequest describes a plan as a Request for events.
func planRequest(p *Plan) Request {
	pp := p.PlanProposal
	return Request{RequestID: p.RequestID, SessionID: p.SessionID, Action: "interact.plan", Class: policy.Mutating, Plan: &pp}
}

// setPlanLocked makes the proposal of q, with the ticked high items only,
// the session's plan, replacing the one it had.
func (s *state) setPlanLocked(q Request, ticks []int, now time.Time) {
	pp := *q.Plan
	pp.High = nil
	for i, h := range q.Plan.High {
		if slices.Contains(ticks, i) {
			pp.High = append(pp.High, h)
		}
	}
	if old := s.plans[q.SessionID]; old != nil {
		s.emitLocked(Event{Type: Expired, Time: now, Request: planRequest(old), ApprovalID: old.PlanID, Reason: "replaced by a new plan"})
	}
	p := &Plan{PlanID: newID("pln_"), SessionID: q.SessionID, RequestID: q.RequestID, PlanProposal: pp,
		CreatedAt: now, ExpiresAt: now.Add(time.Duration(pp.Minutes) * time.Minute)}
	s.plans[q.SessionID] = p
	s.deadline(p.ExpiresAt)
}

// checkTicks refuses ticks that name no high item of the request's plan.
func checkTicks(q *Request, d Decision) error {
	if q.Plan == nil {
		if len(d.Ticks) > 0 {
			return fmt.Errorf("ticks are for a plan's high-risk items; this request is no plan")
		}
		return nil
	}
	if d.Kind != Once {
		return fmt.Errorf("a plan is approved as it is (kind once, with the high-risk items you tick), not with a grant")
	}
	for _, i := range d.Ticks {
		if i < 0 || i >= len(q.Plan.High) {
			return fmt.Errorf("tick %d: the plan has %d high-risk items (0 … %d)", i, len(q.Plan.High), len(q.Plan.High)-1)
		}
	}
	return nil
}

// coveringPlanLocked returns the session's live plan if it covers req,
// and otherwise why not ("" when the session has no plan).
func (s *state) coveringPlanLocked(req *Request, now time.Time) (*Plan, string) {
	p := s.plans[req.SessionID]
	if p == nil || !now.Before(p.ExpiresAt) {
		return nil, ""
	}
	if why := p.miss(req); why != "" {
		return nil, why
	}
	return p, ""
}

// revokePlanLocked ends a plan early.
func (s *state) revokePlanLocked(id string, now time.Time) bool {
	for sid, p := range s.plans {
		if p.PlanID == id {
			delete(s.plans, sid)
			s.emitLocked(Event{Type: Expired, Time: now, Request: planRequest(p), ApprovalID: id, Reason: "revoked by the user"})
			return true
		}
	}
	return false
}
