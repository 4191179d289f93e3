package redact

import "strings"

// member describes one object member (or array element, with an empty key)
// for planning, whatever the representation: raw JSON or Go values.
//
// key, and str for a member that may name a pair, are already redacted:
// names are judged on their redacted form, which a second pass sees
// unchanged, so the verdict is the same in both passes.
type member struct {
	key       string // redacted name
	rawKey    string // the name as it was
	str       string // the value, when it is a string
	rawStr    string // the value as it was, when redacted is set
	isStr     bool
	redacted  bool // str is the value's redacted text (pair-name candidates)
	composite bool // the value is an object or an array
}

// nameOf is the name a redacted key or pair name is judged by: markers
// count as separators, not words, so "AKey:[REDACTED:password]" is judged
// as "AKey:" and "[REDACTED:github_token]" as no name at all — in the first
// pass and in any later one alike.
func nameOf(s string) string {
	if !strings.Contains(s, markerPrefix) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := markerLen(s[i:]); n > 0 {
			b.WriteByte(' ')
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return strings.TrimSpace(b.String())
}

// pairNameCandidate reports whether member k of an object (or element 0 of
// a two-element array) may name a pair, so its string value is redacted
// before planning.
func pairNameCandidate(obj bool, key string, k, n int) bool {
	if obj {
		return tags(key)&tagPairName != 0
	}
	return k == 0 && n == 2
}

// action says what to do with one member's value.
type action struct {
	secret bool    // rewrite the value under rule
	rule   keyRule // when secret
	cookie bool    // walk the object/array value in cookie mode
}

// Member-name tags: one lookup per member tells planObject every role the
// name can play.
const (
	tagCookieAttr = 1 << iota // describes a cookie: stays in cookie mode
	tagCookieOnly             // only cookies have it: {name, value, domain} is a cookie
	tagPairName               // "name"/"key" of a name/value pair
	tagPairValue              // "value" of a name/value pair
	tagType                   // "type" (service accounts)
	tagPrivateKey             // private_key(_id) of a service account
)

var memberTags = func() map[string]uint8 {
	m := map[string]uint8{}
	tag := func(t uint8, names ...string) {
		for _, n := range names {
			m[n] |= t
		}
	}
	// Cookie attributes stay in cookie mode; every other member is a value.
	tag(tagCookieAttr, "name", "domain", "path", "expires", "httponly", "secure", "samesite",
		"size", "session", "priority", "sameparty", "sourcescheme", "sourceport",
		"partitionkey", "partitioned", "hostonly", "expirationdate", "maxage", "storeid")
	tag(tagCookieOnly, "domain", "httponly", "secure", "samesite", "expires", "hostonly",
		"expirationdate", "maxage", "partitionkey", "sameparty", "sourcescheme", "sourceport")
	tag(tagPairName, "name", "key")
	tag(tagPairValue, "value")
	tag(tagType, "type")
	tag(tagPrivateKey, "privatekey")
	return m
}()

// tags returns the member tags of key, lowercased with separators
// dropped. It does not allocate.
func tags(key string) uint8 {
	if len(key) > 32 {
		return 0
	}
	var buf [32]byte
	n := 0
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case isUpper(c):
			buf[n] = c + 'a' - 'A'
			n++
		case isLower(c) || isDigit(c):
			buf[n] = c
			n++
		}
	}
	return memberTags[string(buf[:n])]
}

// planObject decides, member by member, how an object's values are
// redacted. Beyond plain key names it knows three shapes:
//   - name/value pairs — {"name":"Authorization","value":"Bearer x"} (HAR
//     headers and query strings, storage items): the value is judged by the
//     name's rule; a pair with cookie attributes (domain, httpOnly, …) is a
//     cookie, whose value always goes;
//   - a service account — {"type":"service_account","private_key":…}: the
//     private key is a gcp_service_account;
//   - cookie mode (the object sits under a cookies name): every member but
//     the cookie attributes is a value and goes.
//
// The plan is appended to dst (which may be nil) and returned.
func (e *Engine) planObject(ms []member, cookieMode bool, dst []action) []action {
	base := len(dst)
	dst = append(dst, make([]action, len(ms))...)
	acts := dst[base:]
	if cookieMode {
		for i, m := range ms {
			switch {
			case tags(m.key)&tagCookieAttr != 0:
			case m.composite:
				acts[i].cookie = true
			case e.on(string(Cookie)):
				acts[i] = action{secret: true, rule: cookieValue}
			}
		}
		return dst
	}
	name, value, cookieObj, account := -1, -1, false, false
	for i, m := range ms {
		if r, ok := e.rule(nameOf(m.key)); ok {
			acts[i] = e.secretAction(r, m.composite)
		}
		t := tags(m.key)
		switch {
		case t&tagPairName != 0 && m.isStr && name < 0:
			name = i
		case t&tagPairValue != 0 && value < 0:
			value = i
		case t&tagType != 0 && m.isStr && m.str == "service_account":
			account = true
		}
		cookieObj = cookieObj || t&tagCookieOnly != 0
	}
	if account && e.on(string(GCPServiceAccount)) {
		for i, m := range ms {
			if tags(m.key)&tagPrivateKey != 0 {
				acts[i] = action{secret: true, rule: keyRule{string(GCPServiceAccount), kindWhole}}
			}
		}
	}
	if name < 0 || value < 0 || acts[value].secret || acts[value].cookie {
		return dst
	}
	switch r, ok := e.rule(nameOf(ms[name].str)); {
	case cookieObj && e.on(string(Cookie)):
		acts[value] = action{secret: true, rule: cookieValue}
	case ok:
		acts[value] = e.secretAction(r, ms[value].composite)
	}
	return dst
}

// secretAction is the action for a value under a secret rule: cookie
// containers are walked in cookie mode, anything else is rewritten.
func (e *Engine) secretAction(r keyRule, composite bool) action {
	if composite && (r.kind == kindCookie || r.kind == kindSetCookie) {
		return action{cookie: true}
	}
	return action{secret: true, rule: r}
}

// planArray decides how an array's elements are redacted: a two-element
// ["refresh_token", "…"] pair (DOMStorage items) hides its second element;
// in cookie mode strings are cookie headers and containers stay in cookie
// mode.
func (e *Engine) planArray(ms []member, cookieMode bool, dst []action) []action {
	base := len(dst)
	dst = append(dst, make([]action, len(ms))...)
	acts := dst[base:]
	if cookieMode {
		for i, m := range ms {
			switch {
			case m.composite:
				acts[i].cookie = true
			case m.isStr:
				acts[i] = action{secret: true, rule: cookieRule}
			default:
				acts[i] = action{secret: true, rule: cookieValue}
			}
		}
		return dst
	}
	if len(ms) == 2 && ms[0].isStr && !ms[1].composite {
		if n := nameOf(ms[0].str); isIdent(n) {
			if r, ok := e.rule(n); ok {
				acts[1] = action{secret: true, rule: r}
			}
		}
	}
	return dst
}

// isIdent reports whether s looks like a key name: 1–64 bytes of letters,
// digits, _ - and . — not a sentence or a "k=v" string.
func isIdent(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWord(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}
