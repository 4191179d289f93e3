package redact

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Length limits for token runs: a match longer than these is cut off here
// (and the rest redacted with it) rather than scanned without bound.
const (
	maxTokenLen = 16 << 10
	maxPEMLen   = 64 << 10
)

// token runs the value detectors whose first byte is s[i]. The returned
// span covers the secret only ("Bearer " and "hooks.slack.com/services/"
// stay); its end is also where scanning resumes.
func (e *Engine) token(s string, i int, m *memo) (span, bool) {
	rest := s[i:]
	switch c := s[i]; {
	case c == '-':
		return pem(s, i)
	case c == ':':
		return userinfo(s, i)
	case isDigit(c):
		return card(s, i)
	case c == 'e':
		return jwt(s, i, m)
	case c == 'B' || c == 'b':
		if sp, ok := authScheme(s, i); ok {
			return sp, true
		}
	case c == 'g':
		if sp, ok := prefixed(s, i, githubPrefixes, GitHubToken, m); ok {
			return sp, true
		}
		return prefixed(s, i, gitlabPrefixes, GitLabToken, m)
	case c == 'x':
		return prefixed(s, i, slackPrefixes, SlackToken, m)
	case c == 'h':
		return slackWebhook(s, i, m)
	case c == 's' || c == 'r' || c == 'w':
		if sp, ok := prefixed(s, i, stripePrefixes, StripeKey, m); ok {
			return sp, true
		}
		if strings.HasPrefix(rest, "sk-ant-") {
			return run(s, i, i+7, AnthropicKey, &b64urlSet, 20, false, m)
		}
		if strings.HasPrefix(rest, "sk-") {
			return run(s, i, i+3, OpenAIKey, &b64urlSet, 20, true, m)
		}
	case c == 'f' || c == 'F':
		if sp, ok := e.multipart(s, i); ok {
			return sp, true
		}
	}
	if isUpper(s[i]) {
		if strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") {
			if sp, ok := exact(s, i, i+4, AWSAccessKey, &upperDigitSet, 16); ok {
				return sp, true
			}
		}
		if strings.HasPrefix(rest, "AIza") {
			if sp, ok := exact(s, i, i+4, GCPAPIKey, &b64urlSet, 35); ok {
				return sp, true
			}
		}
		return iban(s, i)
	}
	return span{}, false
}

// Byte sets for token bodies.
var (
	alnumSet      = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
	upperDigitSet = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	b64urlSet     = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
	wordSet       = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
	slackSet      = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
	b64Set        = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
	bearerSet     = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")
	webhookSet    = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_/")
)

func byteSet(chars string) (t [256]bool) {
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return t
}

// prefix is a literal token prefix and the body that must follow it.
type prefix struct {
	lit string
	set *[256]bool
	min int
}

var (
	githubPrefixes = []prefix{{"github_pat_", &wordSet, 30}, {"ghp_", &alnumSet, 30},
		{"gho_", &alnumSet, 30}, {"ghu_", &alnumSet, 30}, {"ghs_", &alnumSet, 30}, {"ghr_", &alnumSet, 30}}
	gitlabPrefixes = []prefix{{"glpat-", &b64urlSet, 20}, {"gldt-", &b64urlSet, 20},
		{"glrt-", &b64urlSet, 20}, {"glptt-", &b64urlSet, 20}, {"glsoat-", &b64urlSet, 20}}
	slackPrefixes = []prefix{{"xoxa-", &slackSet, 10}, {"xoxb-", &slackSet, 10},
		{"xoxp-", &slackSet, 10}, {"xoxr-", &slackSet, 10}, {"xoxs-", &slackSet, 10},
		{"xapp-", &slackSet, 10}}
	// Stripe publishable keys (pk_live_, pk_test_) are public by design —
	// every checkout page embeds one — so they are deliberately absent.
	stripePrefixes = []prefix{{"sk_live_", &alnumSet, 10}, {"sk_test_", &alnumSet, 10},
		{"rk_live_", &alnumSet, 10}, {"rk_test_", &alnumSet, 10}, {"whsec_", &alnumSet, 20}}
)

// prefixed matches the first prefix in ps at s[i].
func prefixed(s string, i int, ps []prefix, label Class, m *memo) (span, bool) {
	for _, p := range ps {
		if strings.HasPrefix(s[i:], p.lit) {
			return run(s, i, i+len(p.lit), label, p.set, p.min, false, m)
		}
	}
	return span{}, false
}

// run matches a body of at least min and at most maxTokenLen bytes of set
// starting at body, ending at a word boundary. mixed requires upper, lower
// and a digit in the body (keys whose prefix alone is too common in prose:
// "sk-").
func run(s string, start, body int, label Class, set *[256]bool, min int, mixed bool, m *memo) (span, bool) {
	j := m.runEnd(s, body, set)
	if m.failed(string(label), set, j) {
		return span{}, false
	}
	if n := j - body; n < min || n > maxTokenLen || j < len(s) && isWord(s[j]) || mixed && !isMixed(s[body:j]) {
		m.fail(string(label), set, j)
		return span{}, false
	}
	return span{start: start, end: j, label: string(label)}, true
}

// exact matches a body of exactly n bytes of set, ending at a word boundary
// that is also not a set byte.
func exact(s string, start, body int, label Class, set *[256]bool, n int) (span, bool) {
	j := body
	for j < len(s) && set[s[j]] && j-body <= n {
		j++
	}
	if j-body != n || j < len(s) && (isWord(s[j]) || set[s[j]]) {
		return span{}, false
	}
	return span{start: start, end: j, label: string(label)}, true
}

// isMixed reports whether t holds an upper-case letter, a lower-case letter
// and a digit — true of random keys, rare in prose and slugs.
func isMixed(t string) bool {
	var u, l, d bool
	for i := 0; i < len(t); i++ {
		c := t[i]
		u = u || isUpper(c)
		l = l || isLower(c)
		d = d || isDigit(c)
	}
	return u && l && d
}

// jwt matches header.payload.signature (up to five segments, for JWE)
// whose header decodes to a JSON object with an "alg" member.
func jwt(s string, i int, m *memo) (span, bool) {
	if !strings.HasPrefix(s[i:], "eyJ") {
		return span{}, false
	}
	j, segs, head := i, 0, 0
	for {
		k := m.runEnd(s, j, &b64urlSet)
		if k-i > maxTokenLen {
			return span{}, false
		}
		if k == j && segs < 2 {
			return span{}, false
		}
		if segs == 0 {
			head = k
		}
		segs++
		j = k
		if segs == 5 || j >= len(s) || s[j] != '.' {
			break
		}
		// A dot continues the token when a segment follows it, or when it
		// closes the payload of an unsigned token ("h.p.").
		if j+1 < len(s) && b64urlSet[s[j+1]] || segs == 2 {
			j++
			continue
		}
		break
	}
	if segs < 3 || j < len(s) && isWord(s[j]) || !jwtHeader(s[i:head]) {
		return span{}, false
	}
	return span{start: i, end: j, label: string(JWT)}, true
}

// jwtHeader reports whether seg is base64url JSON with an "alg" member.
func jwtHeader(seg string) bool {
	if len(seg) > 1024 {
		return false
	}
	if len(seg) < 15 { // {"alg":"x"} is the shortest header
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil || !strings.Contains(string(raw), `"alg"`) {
		return false
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	_, ok := h["alg"]
	return ok
}

// authScheme matches "Bearer <token>" and "Basic <base64 user:pass>"; the
// scheme stays. A bearer token needs 8+ bytes and a digit, or 20+ bytes, so
// "Bearer token" in prose stays.
func authScheme(s string, i int) (span, bool) {
	var label Class
	n := 0
	switch {
	case len(s)-i > 7 && strings.EqualFold(s[i:i+6], "bearer"):
		label, n = Bearer, 6
	case len(s)-i > 6 && strings.EqualFold(s[i:i+5], "basic"):
		label, n = Basic, 5
	default:
		return span{}, false
	}
	j := i + n
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j == i+n {
		return span{}, false
	}
	set := &bearerSet
	if label == Basic {
		set = &b64Set
	}
	k := j
	for k < len(s) && set[s[k]] && k-j < maxTokenLen {
		k++
	}
	for k < len(s) && s[k] == '=' && k-j < maxTokenLen {
		k++
	}
	tok := s[j:k]
	if len(tok) < 8 || k < len(s) && isWord(s[k]) {
		return span{}, false
	}
	if label == Bearer && !strings.ContainsAny(tok, "0123456789") && len(tok) < 20 {
		return span{}, false
	}
	if label == Basic && !basicCreds(tok) {
		return span{}, false
	}
	return span{start: j, end: k, label: string(label)}, true
}

// basicCreds reports whether tok is base64 of printable "user:pass".
func basicCreds(tok string) bool {
	raw, err := base64.StdEncoding.DecodeString(tok)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(tok, "="))
	}
	if err != nil || !utf8.Valid(raw) || !strings.Contains(string(raw), ":") {
		return false
	}
	for _, r := range string(raw) {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// slackWebhook matches hooks.slack.com/{services,workflows,triggers}/…;
// the path after that segment is the secret.
func slackWebhook(s string, i int, m *memo) (span, bool) {
	const host = "hooks.slack.com/"
	if !strings.HasPrefix(s[i:], host) {
		return span{}, false
	}
	j := i + len(host)
	for _, seg := range []string{"services/", "workflows/", "triggers/"} {
		if strings.HasPrefix(s[j:], seg) {
			sp, ok := run(s, j+len(seg), j+len(seg), SlackToken, &webhookSet, 8, false, m)
			return sp, ok
		}
	}
	return span{}, false
}

// pem matches a whole PEM private-key block. A block with no END line is
// redacted to the end of s: truncated text must not leak the rest.
func pem(s string, i int) (span, bool) {
	const begin, dashes = "-----BEGIN ", "-----"
	if !strings.HasPrefix(s[i:], begin) {
		return span{}, false
	}
	h := i + len(begin)
	k := strings.Index(s[h:min(len(s), h+64)], dashes)
	if k < 0 {
		return span{}, false
	}
	label := s[h : h+k]
	if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return span{}, false
	}
	body := h + k + len(dashes)
	end := strings.Index(s[body:min(len(s), body+maxPEMLen)], "-----END ")
	if end < 0 {
		return span{start: i, end: len(s), label: string(PrivateKey)}, true
	}
	// The END line's closing dashes must be on that line: never eat the
	// dashes of a block that follows ("-----END \n-----BEGIN …").
	t := body + end + len("-----END ")
	le := min(lineEnd(s, t), t+64)
	if k := strings.Index(s[t:le], dashes); k >= 0 {
		le = t + k + len(dashes)
	}
	return span{start: i, end: le, label: string(PrivateKey)}, true
}

// userinfo matches the password in scheme://user:password@host.
func userinfo(s string, i int) (span, bool) {
	if !strings.HasPrefix(s[i:], "://") {
		return span{}, false
	}
	j, colon := i+3, -1
	for ; j < len(s) && j-i < 512; j++ {
		c := s[j]
		if c == '@' {
			break
		}
		if c == '/' || c == '?' || c == '#' || c == ' ' || c == '\n' || c == '"' || c == '\'' || c == '<' {
			return span{}, false
		}
		if c == ':' && colon < 0 {
			colon = j
		}
	}
	if j >= len(s) || s[j] != '@' || colon < 0 || colon+1 == j || markerLen(s[colon+1:]) > 0 {
		return span{}, false
	}
	return span{start: colon + 1, end: j, label: string(Password)}, true
}
