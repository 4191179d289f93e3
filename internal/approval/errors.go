package approval

import (
	"errors"
	"time"
)

// Sentinel reasons. Every error the engine returns is an *Error (or a
// *RequiredError) that unwraps to one of these, so callers branch with
// errors.Is and read the code with errors.As.
var (
	ErrDenied       = errors.New("approval: denied")
	ErrPolicyDenied = errors.New("approval: denied by policy")
	ErrPolicy       = errors.New("approval: policy unavailable")
	ErrTrigger      = errors.New("approval: automatic triggers may only run read-only modes")
	ErrUnclassified = errors.New("approval: unclassified action")
	ErrInvalid      = errors.New("approval: invalid request")
	ErrBusy         = errors.New("approval: too many pending requests")
	ErrPending      = errors.New("approval: still pending")
	ErrDecided      = errors.New("approval: already decided")
	ErrNoSiteGrant  = errors.New("approval: no site grant for this request")

	// Token rejections.
	ErrExpired      = errors.New("approval: expired")
	ErrReplayed     = errors.New("approval: replayed")
	ErrOtherSession = errors.New("approval: other session")
	ErrOtherTab     = errors.New("approval: other tab")
	ErrOtherOrigin  = errors.New("approval: other origin")
	ErrOtherAction  = errors.New("approval: other action")
	ErrOtherCall    = errors.New("approval: other arguments")
	ErrUnknown      = errors.New("approval: unknown")
)

// Error codes, for the dispatcher's structured tool errors.
const (
	CodeRequired          = "approval_required"  // ask the user; retry with approval_id
	CodeDenied            = "approval_denied"    // the user said no
	CodeRejected          = "approval_rejected"  // the approval_id is not valid for this call
	CodePending           = "approval_pending"   // the user has not decided yet
	CodeBusy              = "approval_busy"      // too many pending requests
	CodePolicyDenied      = "policy_denied"      // a policy rule denies the call
	CodePolicyUnavailable = "policy_unavailable" // the policy file is broken: fail closed
	CodeTriggerRefused    = "trigger_refused"    // an automatic trigger asked for a gated mode
	CodeUnclassified      = "unclassified"       // the call has no valid class: refused (fail closed)
	CodeInvalid           = "invalid_request"    // a bug in the caller
)

// codes maps each sentinel to its code and retryability.
var codes = map[error]struct {
	code      string
	retryable bool
}{
	ErrDenied: {CodeDenied, false}, ErrPolicyDenied: {CodePolicyDenied, false},
	ErrPolicy: {CodePolicyUnavailable, false}, ErrTrigger: {CodeTriggerRefused, false},
	ErrUnclassified: {CodeUnclassified, false}, ErrInvalid: {CodeInvalid, false},
	ErrBusy: {CodeBusy, true}, ErrPending: {CodePending, true},
	ErrDecided: {CodeInvalid, false}, ErrNoSiteGrant: {CodeInvalid, false},
	ErrExpired: {CodeRejected, false}, ErrReplayed: {CodeRejected, false},
	ErrOtherSession: {CodeRejected, false}, ErrOtherTab: {CodeRejected, false},
	ErrOtherOrigin: {CodeRejected, false}, ErrOtherAction: {CodeRejected, false}, ErrOtherCall: {CodeRejected, false},
	ErrUnknown: {CodeRejected, false},
}

// Error is a refusal with its reason (one of the sentinels) and the details
// an agent or the user needs.
type Error struct {
	Reason     error  // a sentinel: ErrExpired, ErrDenied, …
	Detail     string // what exactly, e.g. "the token is for tab 7, this call is on tab 9"
	RequestID  string
	ApprovalID string
}

func newErr(reason error, detail string) *Error { return &Error{Reason: reason, Detail: detail} }

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Reason.Error()
	}
	return e.Reason.Error() + ": " + e.Detail
}

// Unwrap returns the sentinel reason.
func (e *Error) Unwrap() error { return e.Reason }

// Code is the structured error code (approval_denied, approval_rejected, …).
func (e *Error) Code() string { return codes[e.Reason].code }

// Retryable reports whether the same call may succeed later as it is.
func (e *Error) Retryable() bool { return codes[e.Reason].retryable }

// RequiredError means the user has not decided within the call's budget:
// the dispatcher returns it as the approval_required result, and the agent
// retries with approval_id set to Request.RequestID (or to the approval_id
// that observe {what:"approvals"} lists once the user approves). Cause is
// the context's error when the wait ended because the caller went away.
type RequiredError struct {
	Request Request
	Cause   error
}

func (e *RequiredError) Error() string {
	return "approval: required: " + e.Request.RequestID + " (" + e.Request.Action + " on " + e.Request.Scope.String() + ")"
}

// Unwrap returns the context error, if any.
func (e *RequiredError) Unwrap() error { return e.Cause }

// Code is CodeRequired.
func (e *RequiredError) Code() string { return CodeRequired }

// Retryable is true: retry with approval_id once the user approves.
func (e *RequiredError) Retryable() bool { return true }

// Required is the approval_required result of SAFETY.md.
type Required struct {
	Type      string `json:"type"` // "approval_required"
	SessionID string `json:"session_id"`
	RequestID string `json:"request_id"`
	Action    string `json:"action"`
	Scope     string `json:"scope"` // "tab:7"
	Origin    string `json:"origin,omitempty"`
	Target    string `json:"target,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Risk      *Risk  `json:"risk,omitempty"`
	// OutsidePlan says why the session's approved plan does not cover
	// the call.
	OutsidePlan string    `json:"outside_plan,omitempty"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// Result is the structured approval_required payload for the agent.
func (e *RequiredError) Result() Required {
	r := e.Request
	return Required{
		Type: CodeRequired, SessionID: r.SessionID, RequestID: r.RequestID, Action: r.Action,
		Scope: r.Scope.String(), Origin: r.Scope.Origin, Target: r.Target, Reason: r.Reason, Risk: r.Risk,
		OutsidePlan: r.OutsidePlan, ExpiresAt: r.ExpiresAt,
	}
}

// Code returns the structured code of any error from this package ("" for
// others).
func Code(err error) string {
	var c interface{ Code() string }
	if errors.As(err, &c) {
		return c.Code()
	}
	return ""
}
