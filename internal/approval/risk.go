package approval

import (
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// Tier is how much a call can do, by its mode's class and by what it does
// to its target: the gate decides it in one place (internal/gate/risk.go).
// Grants and plans cover medium calls, high ones only when the user named
// exactly that, and sensitive ones never.
type Tier string

// The tiers.
const (
	// Medium: a change that stays on the page — typing into a field that
	// is not a secret, selecting, ticking, keys that submit nothing, a
	// click that submits no form and leaves for no other origin.
	Medium Tier = "medium"
	// High: a click (or key) that submits a form, follows a link to
	// another origin, opens a download or hits a control named like pay,
	// buy, delete, send, transfer, confirm or publish; a navigation to
	// another origin; a page tool that submits a form by itself.
	High Tier = "high"
	// Sensitive: execute_js, upload, a change of the policy or the
	// redaction: approved alone, every time.
	Sensitive Tier = "sensitive"
)

// The kinds of high risk (Reason.Kind).
const (
	RiskSubmit   = "submit"   // submits a form; To: the origin it goes to
	RiskLeave    = "leave"    // goes to another origin; To: that origin
	RiskDownload = "download" // opens a download; To: the file's origin
	RiskNamed    = "named"    // a control named like pay/delete/…; To: the word
	RiskUnseen   = "unseen"   // what it does could not be read from the page
)

// Reason is one thing that makes a call high-risk.
type Reason struct {
	Mode string `json:"what"`             // the interact mode it comes from (a batch's step's)
	Kind string `json:"risk"`             // RiskSubmit, RiskLeave, …
	To   string `json:"target,omitempty"` // the origin (submit, leave, download) or the word (named)
	Why  string `json:"why"`              // in words: `submits form "Checkout" to https://shop.example`
}

// key is what two reasons must share to be the same kind of risk.
func (r Reason) key() string { return r.Mode + "\x00" + r.Kind + "\x00" + r.To }

// Risk is a call's tier and, above medium, why.
type Risk struct {
	Tier    Tier     `json:"tier"`
	Why     string   `json:"why,omitempty"`
	Reasons []Reason `json:"reasons,omitempty"`
}

// tier is the request's tier: its Risk's, or its class's.
func (r *Request) tier() Tier {
	switch {
	case r.Class == policy.Sensitive || policy.AlwaysAsk(r.Action):
		return Sensitive
	case r.Risk != nil && r.Risk.Tier != "":
		return r.Risk.Tier
	}
	return Medium
}

func (r *Request) reasons() []Reason {
	if r.Risk == nil {
		return nil
	}
	return r.Risk.Reasons
}

// offers is what the user may answer a request with: once always; grants
// only for a call on a web origin that a grant may cover — never a
// sensitive call, a plan, a change of the guards, a call whose effect
// could not be read, or one that reaches another origin (a grant never
// covers another origin). The rest of the session covers medium calls
// only, so it is offered on those.
func offers(req *Request) []Kind {
	out := []Kind{Once}
	if req.Plan != nil || req.tier() == Sensitive {
		return out
	}
	if _, err := policy.ParseOrigin(req.Scope.Origin); err != nil || req.Scope.Origin == "" {
		return out
	}
	for _, r := range req.reasons() {
		if r.Kind == RiskUnseen || r.Kind != RiskNamed && policy.CanonicalOrigin(r.To) != req.Scope.Origin {
			return out
		}
	}
	out = append(out, Action)
	if req.tier() == Medium {
		out = append(out, Session)
	}
	return out
}

// offered reports whether the request offers kind.
func offered(req *Request, k Kind) bool { return slices.Contains(req.Offers, k) }

// covers reports whether a live grant covers req: the same session and
// origin, a call a grant may cover at all, and — for a grant of this kind
// of action — the same action with no risk the granted request did not
// have; for the rest of the session, a medium call.
func (g *SiteGrant) covers(req *Request) bool {
	if g.SessionID != req.SessionID || g.Origin != req.Scope.Origin || req.tier() == Sensitive || req.Plan != nil {
		return false
	}
	switch g.Kind {
	case Session:
		return req.tier() == Medium
	case Action:
		if req.Action != g.Action {
			return false
		}
		for _, r := range req.reasons() {
			if !slices.ContainsFunc(g.Reasons, func(h Reason) bool { return h.key() == r.key() }) {
				return false
			}
		}
		return true
	}
	return false
}

// grantWords says what a grant covers, for the panel and the CLI.
func grantWords(q *Request, k Kind) string {
	if k == Session {
		return "medium-risk changes (typing, clicks that stay on the page …) on " + q.Scope.Origin + " until this session ends"
	}
	what := strings.TrimPrefix(q.Action, "interact.")
	if q.tier() == High && q.Risk != nil && q.Risk.Why != "" {
		return what + " calls like this one (" + q.Risk.Why + ") on " + q.Scope.Origin
	}
	return what + " calls that stay on the page on " + q.Scope.Origin
}
