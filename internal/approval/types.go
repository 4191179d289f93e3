package approval

import (
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

// Scope is where an action runs: a tab of the session and the origin of the
// page it acts on. Tokens are valid only for the same tab and origin.
type Scope struct {
	TabID  int    `json:"tab_id"`
	Origin string `json:"origin,omitempty"` // canonical (policy.CanonicalOrigin); "" when the tab has no page yet
}

// String is the scope as SAFETY.md shows it: "tab:7".
func (s Scope) String() string { return fmt.Sprintf("tab:%d", s.TabID) }

func (s Scope) canonical() Scope {
	return Scope{TabID: s.TabID, Origin: policy.CanonicalOrigin(s.Origin)}
}

// Request is one approval request: a gated call waiting for the user.
// Callers fill SessionID, Action, Class, Scope, Target and Reason; the
// engine assigns RequestID, CreatedAt and ExpiresAt (values the caller sets
// there are ignored).
type Request struct {
	RequestID string       `json:"request_id"`
	SessionID string       `json:"session_id"`
	Action    string       `json:"action"` // "tool.mode", e.g. "interact.click"
	Class     policy.Class `json:"class"`
	Scope     Scope        `json:"scope"`
	// Target says what will be acted on, for the user:
	// `button "Pay now" on https://shop.example/checkout`.
	Target string `json:"target,omitempty"`
	Reason string `json:"reason,omitempty"` // why the agent wants it, if it said
	// PageWarning tells the user, beside the action, that this session
	// has received page text that read like instructions to an AI ("the
	// page contained instruction-like text: …"; internal/untrusted). The
	// caller sets it; "" when nothing was flagged.
	PageWarning string    `json:"page_warning,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	ExpiresAt   time.Time `json:"expires_at"`
	// SiteGrantable tells the panel whether "approve for this site" is on
	// offer: the scope has a web origin and the action is not AlwaysAsk.
	SiteGrantable bool `json:"site_grantable"`
	// Steps names each step of a batch in words, in order (`type "…" into
	// textbox "Name"`): the user approves exactly these.
	Steps []string `json:"steps,omitempty"`
	// Describe says in plain words what kind of thing the call does, the
	// same for every call of its mode ("Go to another page in a tab"). The
	// caller sets it (internal/gate keeps the wording of every mode).
	Describe string `json:"describe,omitempty"`
	// Notes are what the user should weigh besides the target, a sentence
	// each: whether a navigation leaves the site and what data it carries,
	// what a policy change lets run.
	Notes []string `json:"notes,omitempty"`
	// Detail is the whole of what the user approves when it does not fit
	// a line (execute_js's script, navigate's full address, a policy
	// change's rules), shown whole and scrollable, never cut: a request
	// whose Detail passes MaxDetail is refused, not shortened.
	// DetailLabel names it for the user ("The whole script").
	Detail      string `json:"detail,omitempty"`
	DetailLabel string `json:"detail_label,omitempty"`
	// Page is the tab the call acts on as the browser reports it (its
	// title and address from the browser, never from the page's script).
	Page *Page `json:"page,omitempty"`

	// Call fingerprints the call's arguments (the caller computes it): an
	// approval given on this request is valid only for a call with the
	// same fingerprint, so a retry cannot run anything the user did not
	// see. Empty means "any arguments" (site grants never look at it).
	Call string `json:"-"`

	// ApprovalID is the approval_id (or the request_id) the agent retried
	// with; empty on a first call. Never shown to the user.
	ApprovalID string `json:"-"`
	// Trigger marks a call started automatically (agent_watch), not by the
	// agent: only read-only modes that the policy allows outright may run.
	Trigger bool `json:"-"`
}

// Page is a tab's title and address as the browser reports them.
type Page struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Kind is the kind of a user's approval.
type Kind string

// The approval kinds.
const (
	Once Kind = "once" // this one call
	Site Kind = "site" // this call, and the same session + origin + class for Minutes
)

// Decision is the user's yes: approve once, or for this site for Minutes.
type Decision struct {
	Kind    Kind `json:"kind"`
	Minutes int  `json:"minutes,omitempty"` // Site only: 1 … Options.MaxSiteMinutes
}

func (d Decision) String() string {
	if d.Kind == Site {
		return fmt.Sprintf("site:%dm", d.Minutes)
	}
	return string(d.Kind)
}

// Token is what an approval mints: valid once, for one session, action and
// scope, until ExpiresAt.
type Token struct {
	ApprovalID string       `json:"approval_id"`
	SessionID  string       `json:"session_id"`
	RequestID  string       `json:"request_id"`
	Action     string       `json:"action"`
	Class      policy.Class `json:"class"`
	Scope      Scope        `json:"scope"`
	ExpiresAt  time.Time    `json:"expires_at"`
	SingleUse  bool         `json:"single_use"`
	// Call is the request's call fingerprint (Request.Call).
	Call string `json:"-"`
}

// String describes a token for logs: ids and scope, nothing else.
func (t Token) String() string {
	return fmt.Sprintf("%s for %s on %s %s until %s", t.ApprovalID, t.Action, t.Scope, orNone(t.Scope.Origin), t.ExpiresAt.UTC().Format(time.RFC3339))
}

// SiteGrant is an "approve for this site for N minutes": it covers calls of
// one session, on one origin, of one class, until ExpiresAt.
type SiteGrant struct {
	GrantID   string       `json:"grant_id"`
	SessionID string       `json:"session_id"`
	Origin    string       `json:"origin"`
	Class     policy.Class `json:"class"`
	RequestID string       `json:"request_id"` // the request it was given on
	CreatedAt time.Time    `json:"created_at"`
	ExpiresAt time.Time    `json:"expires_at"`
}

// By says what let a call through.
type By string

// What can let a call through.
const (
	ByPolicy   By = "policy"   // a policy rule allows it without asking
	BySite     By = "site"     // a live site grant covers it
	ByApproval By = "approval" // a user approval's token was consumed
)

// Grant is Require's yes: the call may run now.
type Grant struct {
	By         By     `json:"by"`
	RequestID  string `json:"request_id,omitempty"`
	ApprovalID string `json:"approval_id,omitempty"` // the consumed token, or the site grant's id
	Rule       string `json:"rule,omitempty"`        // ByPolicy: the deciding rule
}

// EventType names an approval event.
type EventType string

// The events, as the panel and the audit log see them.
const (
	Requested EventType = "requested" // a request waits for the user
	Approved  EventType = "approved"  // the user said yes; a token was minted
	Denied    EventType = "denied"    // the user said no
	Expired   EventType = "expired"   // a request, token or grant ran out (or its session ended)
	Consumed  EventType = "consumed"  // a token or site grant let a call run
	Rejected  EventType = "rejected"  // a token was refused; Reason says why
)

// Event is one approval event. Request is a copy of the request concerned
// (for a rejected token: the call that presented it).
type Event struct {
	Type       EventType `json:"type"`
	Time       time.Time `json:"time"`
	Request    Request   `json:"request"`
	ApprovalID string    `json:"approval_id,omitempty"`
	Decision   string    `json:"decision,omitempty"` // once | site:Nm
	Reason     string    `json:"reason,omitempty"`
}
