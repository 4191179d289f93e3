package redact

import (
	"errors"
	"strings"
)

// Class names one kind of secret. Its string is the stable label used in the
// replacement marker [REDACTED:<label>], in [Stats.ByClass] and in
// [Policy.Disable]. User patterns carry their own labels.
type Class string

// The built-in classes. Renaming one is a policy-visible change.
const (
	Bearer            Class = "bearer"              // Authorization: Bearer <token>
	Basic             Class = "basic"               // Basic base64(user:pass)
	JWT               Class = "jwt"                 // header.payload.signature, header has "alg"
	AWSAccessKey      Class = "aws_access_key"      // AKIA…/ASIA… key ids
	AWSSecret         Class = "aws_secret"          // the value of aws_secret_access_key
	GCPAPIKey         Class = "gcp_api_key"         // AIza…
	GCPServiceAccount Class = "gcp_service_account" // private_key of a service-account JSON
	Azure             Class = "azure"               // AccountKey=, SharedAccessKey=, SAS sig=
	GitHubToken       Class = "github_token"        // ghp_ gho_ ghu_ ghs_ ghr_ github_pat_
	GitLabToken       Class = "gitlab_token"        // glpat- and friends
	SlackToken        Class = "slack_token"         // xox[abprs]- tokens and webhook URLs
	OpenAIKey         Class = "openai_key"          // sk-…, sk-proj-…
	AnthropicKey      Class = "anthropic_key"       // sk-ant-…
	StripeKey         Class = "stripe_key"          // sk_/rk_ live/test, whsec_ (pk_ is public)
	PrivateKey        Class = "private_key"         // a whole PEM private-key block
	Cookie            Class = "cookie"              // cookie values; names and attributes stay
	SessionID         Class = "session_id"          // values under session-like names
	CSRF              Class = "csrf"                // values under csrf/xsrf names
	Password          Class = "password"            // values under other secret names
	Card              Class = "card"                // Luhn-valid card numbers with a known IIN
	IBAN              Class = "iban"                // IBANs with a valid mod-97 checksum
	CVV               Class = "cvv"                 // 3–4 digits labelled cvv/cvc/csc/security code
	User              Class = "user"                // user patterns (each has its own label)
)

// Classes lists every built-in class in a stable order.
func Classes() []Class {
	return []Class{Bearer, Basic, JWT, AWSAccessKey, AWSSecret, GCPAPIKey, GCPServiceAccount,
		Azure, GitHubToken, GitLabToken, SlackToken, OpenAIKey, AnthropicKey, StripeKey,
		PrivateKey, Cookie, SessionID, CSRF, Password, Card, IBAN, CVV, User}
}

// markerPrefix starts every replacement; text already inside a marker is
// never matched again, which keeps redaction idempotent.
const markerPrefix = "[REDACTED:"

// Marker returns the replacement text for label: "[REDACTED:<label>]".
func Marker(label string) string { return markerPrefix + label + "]" }

// markerLen returns the length of the marker starting at s[0], or 0.
func markerLen(s string) int {
	if !strings.HasPrefix(s, markerPrefix) {
		return 0
	}
	for i := len(markerPrefix); i < len(s) && i < len(markerPrefix)+maxLabelLen+1; i++ {
		c := s[i]
		switch {
		case c == ']' && i > len(markerPrefix):
			return i + 1
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
		default:
			return 0
		}
	}
	return 0
}

// isMarker reports whether s is exactly one marker.
func isMarker(s string) bool { return s != "" && markerLen(s) == len(s) }

// Stage names where redaction runs. The rules are the same at every stage;
// the stage only labels counters and audit records.
type Stage string

// The three stages of the redaction gateway (SAFETY.md).
const (
	StageSource Stage = "source" // in the native host, before data reaches the daemon
	StageServer Stage = "server" // before buffers and before any response
	StageEgress Stage = "egress" // before exports, files and model adapters
)

// Stats counts what one call redacted. It never holds a value.
type Stats struct {
	Redacted int            // replacements made
	ByClass  map[string]int // replacements per label; nil when Redacted is 0
}

// add counts n replacements of label.
func (s *Stats) add(label string, n int) {
	if n <= 0 {
		return
	}
	if s.ByClass == nil {
		s.ByClass = make(map[string]int, 2)
	}
	s.ByClass[label] += n
	s.Redacted += n
}

// merge adds o into s.
func (s *Stats) merge(o Stats) {
	for k, n := range o.ByClass {
		s.add(k, n)
	}
}

// ErrBlocked is the sentinel behind every refusal to produce output: input
// over the size cap, an internal error or a nil engine. Callers must block
// the output (never pass the input through) and may show the error, which
// never contains input.
var ErrBlocked = errors.New("redact: output blocked")

// ErrPolicy is the sentinel behind every policy that cannot be loaded, parsed
// or compiled. Callers fail closed: no engine, no output.
var ErrPolicy = errors.New("redact: invalid policy")
