package redact

import "strings"

// secretValue rewrites a value found under a secret name. The name's rule
// decides how: cookies keep their names, Authorization keeps its scheme,
// anything else goes whole. Under a generic name (label "password") a value
// that is itself one recognised token gets that token's label ("Bearer
// [REDACTED:bearer]", "[REDACTED:jwt]"); a specific name's label (session_id,
// csrf, gcp_service_account, …) wins otherwise. Values already redacted are
// left as they are.
func (e *Engine) secretValue(r keyRule, v string, st *Stats, depth int) string {
	if strings.TrimSpace(v) == "" || isMarker(v) {
		return v
	}
	switch r.kind {
	case kindCookie:
		return e.cookieHeader(v, st, depth)
	case kindSetCookie:
		return e.setCookie(v, st, depth)
	case kindAuth:
		return e.authorization(v, st)
	}
	if onlySchemeLeft(v) {
		return v // "Bearer [REDACTED:bearer]": redacted already
	}
	if r.label == string(Password) {
		// A generic secret name: a value that is one recognised token gets
		// the token's label, which tells the agent more.
		if out, label, ok := e.wholeToken(v); ok {
			st.add(label, 1)
			return out
		}
	}
	st.add(r.label, 1)
	return Marker(r.label)
}

// wholeToken reports whether v (blanks aside) is exactly one token a value
// detector recognises, and returns it redacted with what the detector keeps
// ("Bearer "). One anchored detector call: linear in the token.
func (e *Engine) wholeToken(v string) (string, string, bool) {
	t := strings.TrimSpace(v)
	if t == "" || !trigger[t[0]] || t[0] == '[' {
		return "", "", false
	}
	sp, ok := e.token(t, 0, nil)
	if !ok || sp.end != len(t) || !e.on(sp.label) {
		return "", "", false
	}
	out := t[:sp.start] + Marker(sp.label)
	if !onlySchemeLeft(out) { // keep nothing but a scheme word
		return "", "", false
	}
	return out, sp.label, true
}

// onlySchemeLeft reports whether nothing but markers, blanks and at most an
// auth scheme word remains in s: it was fully redacted by value patterns.
func onlySchemeLeft(s string) bool {
	var rest strings.Builder
	found := false
	for i := 0; i < len(s); {
		if n := markerLen(s[i:]); n > 0 {
			found = true
			i += n
			continue
		}
		rest.WriteByte(s[i])
		i++
	}
	if !found {
		return false
	}
	switch t := strings.ToLower(strings.TrimSpace(rest.String())); t {
	case "", "bearer", "basic":
		return true
	}
	return false
}

// cookieHeader redacts a Cookie header value "a=1; b=2": every value goes,
// every name stays (scanned for value patterns like any text).
func (e *Engine) cookieHeader(v string, st *Stats, depth int) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		parts[i] = e.cookiePair(p, st, depth)
	}
	return strings.Join(parts, ";")
}

// cookiePair redacts the value of one "name=value"; a pair without "=" is
// all value.
func (e *Engine) cookiePair(p string, st *Stats, depth int) string {
	eq := strings.IndexByte(p, '=')
	if eq < 0 {
		t := strings.TrimSpace(p)
		if t == "" || isMarker(t) {
			return p
		}
		st.add(string(Cookie), 1)
		return p[:len(p)-len(strings.TrimLeft(p, " \t"))] + Marker(string(Cookie))
	}
	name := e.plain(p[:eq], st, depth)
	val := strings.TrimSpace(p[eq+1:])
	if val == "" || isMarker(val) {
		return name + p[eq:]
	}
	st.add(string(Cookie), 1)
	return name + "=" + Marker(string(Cookie))
}

// setCookie redacts Set-Cookie values, one cookie per line (CDP joins
// several with "\n"): the cookie's value goes; its name and the standard
// attributes (Path, Domain, Expires, …) stay. Anything else after a ";" is
// treated as another cookie pair, so a malformed header cannot smuggle a
// value through as an "attribute".
func (e *Engine) setCookie(v string, st *Stats, depth int) string {
	lines := strings.Split(v, "\n")
	for i, line := range lines {
		parts := strings.Split(line, ";")
		for k, p := range parts {
			name, _, _ := strings.Cut(p, "=")
			if k > 0 && setCookieAttrs[normalizeKey(name)] {
				parts[k] = e.plain(p, st, depth)
				continue
			}
			parts[k] = e.cookiePair(p, st, depth)
		}
		lines[i] = strings.Join(parts, ";")
	}
	return strings.Join(lines, "\n")
}

// setCookieAttrs are the Set-Cookie attributes (RFC 6265bis and CHIPS).
var setCookieAttrs = set("path", "domain", "expires", "maxage", "samesite", "secure", "httponly",
	"priority", "partitioned", "version", "comment", "sameparty")

// authorization redacts an Authorization value: "Bearer x" →
// "Bearer [REDACTED:bearer]", "Basic x" → basic, another registered scheme
// (Digest, Negotiate, AWS4-HMAC-SHA256, …) keeps its name with the
// credentials as password; a value with no known scheme goes whole.
func (e *Engine) authorization(v string, st *Stats) string {
	t := strings.TrimLeft(v, " \t")
	lead := v[:len(v)-len(t)]
	k := 0
	for k < len(t) && k < 24 && (isAlnum(t[k]) || t[k] == '-' || t[k] == '_') {
		k++
	}
	sp := k
	for sp < len(t) && (t[sp] == ' ' || t[sp] == '\t') {
		sp++
	}
	label := string(Password)
	if k == 0 || sp == k || sp == len(t) {
		if isMarker(strings.TrimSpace(v)) || !e.on(label) {
			return v
		}
		st.add(label, 1)
		return lead + Marker(label)
	}
	if isMarker(strings.TrimSpace(t[sp:])) {
		return v
	}
	scheme := strings.ToLower(t[:k])
	switch {
	case scheme == "bearer":
		label = string(Bearer)
	case scheme == "basic":
		label = string(Basic)
	case !authSchemes[scheme]:
		// Not a scheme we know: the first word may be the secret itself.
		st.add(label, 1)
		return lead + Marker(label)
	}
	if !e.on(label) {
		label = string(Password)
	}
	if !e.on(label) {
		return v
	}
	st.add(label, 1)
	return lead + t[:sp] + Marker(label)
}

// authSchemes are the Authorization schemes whose name is kept (IANA HTTP
// authentication scheme registry plus common vendor schemes).
var authSchemes = set("bearer", "basic", "digest", "negotiate", "ntlm", "token", "hoba", "mutual",
	"oauth", "hawk", "dpop", "vapid", "scram-sha-1", "scram-sha-256", "aws4-hmac-sha256",
	"googlelogin", "apikey", "api-key", "ssws", "sso-key", "jwt", "privacy-token", "concealed")
