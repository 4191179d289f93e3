package redact

import (
	"net/url"
	"strings"
)

// maxKeyLen bounds a key name in text; longer identifiers are not keys.
const maxKeyLen = 128

// keyValue is the text form of key-name redaction: a name, an optional
// closing quote, a delimiter (: = => :=) and a value, as in
// password=hunter2, "token": "abc", 'api_key' => 'x', X-Api-Key: abc,
// {\"secret\":\"x\"}, obj["token"] = "x". A secret name's value is
// replaced (the name stays); cvv/cvc labels also take "CVV 123". For other
// names, a URL-encoded value (with % or +) is decoded and scanned, so
// ?note=Bearer%20abc is caught.
func (e *Engine) keyValue(s string, i int, st *Stats, depth int, m *memo) (span, int, bool) {
	if i < m.kvUntil {
		return span{}, 0, false // inside a name already judged
	}
	ke := i
	for ke < len(s) && ke-i < maxKeyLen && (isWord(s[ke]) || s[ke] == '-' || s[ke] == '.') {
		ke++
	}
	for ke > i && (s[ke-1] == '-' || s[ke-1] == '.') {
		ke--
	}
	j := ke
	if j+1 < len(s) && s[j] == '\\' && s[j+1] == '"' {
		j += 2
	} else if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	if j < len(s) && s[j] == ']' { // obj["password"] = …, $cfg['token'] => …
		j++
	}
	j = skipBlank(s, j)
	d := delimiter(s, j)
	// The verdict on this name covers its sub-words too: "max-tokens: 5"
	// is not re-judged as "tokens: 5". Only short tails stay open without
	// a delimiter, for "card-cvv 123".
	m.kvUntil = ke
	if d == 0 {
		m.kvUntil = ke - 16
		if !e.isCVVName(s[i:ke]) {
			return span{}, 0, false
		}
	}
	v := skipBlank(s, j+d)
	rule, secret := e.rule(s[i:ke])
	if !secret {
		if d > 0 && s[j] == '=' && v >= m.decodedUntil {
			return e.encodedValue(s, v, st, depth, m)
		}
		return span{}, 0, false
	}
	if d == 0 && (rule.label != string(CVV) || j == ke) {
		return span{}, 0, false
	}
	if schemeThenMarker(s, v) {
		return span{}, 0, false // "Bearer [REDACTED:bearer]": done already
	}
	vs, ve := valueExtent(s, v, rule.kind)
	if e.nestedKey(s, vs, ve) {
		// "secret: aws_secret_access_key = …": the value is the next
		// pair's secret name; that pair is matched on its own, so its
		// value is not left behind.
		return span{}, 0, false
	}
	if rule.kind == kindWhole && vs == v && v < len(s) {
		// A recognised token at an unquoted value that reaches at least as
		// far as the value gives the exact extent ("IBAN: DE89 3704 …",
		// "token=Bearer …"); its label replaces only the generic
		// "password". A token that ends early does not: the rest would leak.
		if sp, ok := e.token(s, v, m); ok && sp.end >= ve && e.on(sp.label) {
			if rule.label != string(Password) {
				sp.label = rule.label
			}
			st.add(sp.label, 1)
			return sp, sp.end, true
		}
	}
	if vs >= ve || vs < len(s) && markerLen(s[vs:]) > 0 || isLiteral(s[vs:ve]) {
		return span{}, 0, false
	}
	if d == 0 && !cvvDigits(s[vs:ve]) {
		return span{}, 0, false
	}
	// A value that takes in the BEGIN line of a private key takes the
	// whole block: the body must not be left behind unread.
	if k := strings.Index(s[vs:ve], "-----BEGIN "); k >= 0 {
		if sp, ok := pem(s, vs+k); ok && sp.end > ve {
			ve = sp.end
		}
	}
	repl := e.secretValue(rule, s[vs:ve], st, depth)
	return span{start: vs, end: ve, repl: repl}, ve, true
}

// nestedKey reports whether the value s[vs:ve] is itself a secret name
// followed by a delimiter (after its closing quote, if quoted).
func (e *Engine) nestedKey(s string, vs, ve int) bool {
	if vs >= ve || ve-vs > maxKeyLen {
		return false
	}
	ne := ve // the name's end: "Cookie:" as an unquoted value ends in its delimiter
	for ne > vs && (s[ne-1] == ':' || s[ne-1] == '=') {
		ne--
	}
	for k := vs; k < ne; k++ {
		if c := s[k]; !isWord(c) && c != '-' && c != '.' {
			return false
		}
	}
	if ne == vs {
		return false
	}
	if ne == ve {
		j := ve
		if j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == '`') {
			j++
		} else if j+1 < len(s) && s[j] == '\\' && s[j+1] == '"' {
			j += 2
		}
		if d := delimiter(s, skipBlank(s, j)); d == 0 {
			return false
		}
	}
	_, secret := e.rule(s[vs:ne])
	return secret
}

// schemeThenMarker reports whether s[v:] is an auth scheme followed by a
// marker, the shape a redacted "Bearer <token>" value leaves behind.
func schemeThenMarker(s string, v int) bool {
	k := v
	for k < len(s) && isLetter(s[k]) && k-v < 6 {
		k++
	}
	if w := s[v:k]; !strings.EqualFold(w, "bearer") && !strings.EqualFold(w, "basic") {
		return false
	}
	k = skipBlank(s, k)
	return k > v && k < len(s) && markerLen(s[k:]) > 0
}

// skipBlank skips spaces and tabs (never newlines).
func skipBlank(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return j
}

// delimiter returns the length of the key-value delimiter at s[j], or 0.
// "://" (a URL scheme) and "==" are not delimiters.
func delimiter(s string, j int) int {
	if j >= len(s) {
		return 0
	}
	switch s[j] {
	case ':':
		if strings.HasPrefix(s[j:], "://") || strings.HasPrefix(s[j:], "::") {
			return 0
		}
		if strings.HasPrefix(s[j:], ":=") {
			return 2
		}
		return 1
	case '=':
		if strings.HasPrefix(s[j:], "==") {
			return 0
		}
		if strings.HasPrefix(s[j:], "=>") {
			return 2
		}
		return 1
	}
	return 0
}

// isCVVName reports whether a name is a card-security-code label (cvv,
// CVC2, security_code, …). It runs for every word in text, so it avoids
// the general classifier and allocation.
func (e *Engine) isCVVName(name string) bool {
	if len(name) < 3 || len(name) > 16 {
		return false
	}
	var buf [16]byte
	n := 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case isUpper(c):
			buf[n] = c + 'a' - 'A'
			n++
		case isLower(c) || isDigit(c):
			buf[n] = c
			n++
		}
	}
	switch string(buf[:n]) {
	case "cvv", "cvc", "csc", "cvn", "cvv2", "cvc2", "securitycode", "cardcode":
		return e.on(string(CVV))
	}
	return false
}

// cvvDigits reports whether v is 3 or 4 digits.
func cvvDigits(v string) bool {
	if len(v) < 3 || len(v) > 4 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return true
}

// isLiteral reports whether v is a JSON literal that cannot hold a secret.
func isLiteral(v string) bool { return v == "true" || v == "false" || v == "null" }

// valueExtent returns the value starting at s[v]:
//   - quoted ("…", '…', `…`, \"…\"): inside the quotes; to the end of the
//     line when the closing quote is missing;
//   - a JSON object or array: through its closing bracket, to the end of s
//     when unbalanced;
//   - Authorization and cookie headers: to the end of the line;
//   - otherwise up to whitespace or one of & ; " ' ` < >, or , ) ] } when
//     followed by a space or the end.
func valueExtent(s string, v int, kind keyKind) (int, int) {
	if v >= len(s) {
		return v, v
	}
	switch c := s[v]; {
	case c == '\\' && v+1 < len(s) && s[v+1] == '"':
		end := strings.Index(s[v+2:], `\"`)
		if end < 0 {
			return v + 2, lineEnd(s, v+2)
		}
		return v + 2, v + 2 + end
	case c == '"' || c == '\'' || c == '`':
		for k := v + 1; k < len(s); k++ {
			switch s[k] {
			case '\\':
				k++
			case c:
				return v + 1, k
			case '\n':
				return v + 1, k
			}
		}
		return v + 1, len(s)
	case c == '{' || c == '[':
		return v, bracketEnd(s, v)
	}
	if kind != kindWhole {
		return v, lineEnd(s, v)
	}
	k := v
	for ; k < len(s); k++ {
		if s[k] == '[' { // a marker is one unit: never cut it
			if n := markerLen(s[k:]); n > 0 {
				k += n - 1
				continue
			}
		}
		switch c := s[k]; c {
		case ' ', '\t', '\n', '\r', '&', ';', '"', '\'', '`', '<', '>':
			return v, k
		case ',', ')', ']', '}':
			if k+1 == len(s) || s[k+1] == ' ' || s[k+1] == '\n' || s[k+1] == '\r' || s[k+1] == '"' ||
				s[k+1] == ',' || s[k+1] == ')' || s[k+1] == ']' || s[k+1] == '}' {
				return v, k
			}
		}
	}
	return v, k
}

// lineEnd returns the index of the next \r or \n at or after i, or len(s).
func lineEnd(s string, i int) int {
	if k := strings.IndexAny(s[i:], "\r\n"); k >= 0 {
		return i + k
	}
	return len(s)
}

// bracketEnd returns the index after the bracket matching s[v], skipping
// quoted strings, or len(s) when it is not closed.
func bracketEnd(s string, v int) int {
	depth, inStr := 0, byte(0)
	for k := v; k < len(s); k++ {
		c := s[k]
		if inStr != 0 {
			if c == '\\' {
				k++
			} else if c == inStr {
				inStr = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			inStr = c
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return len(s)
}

// encodedValue decodes a URL-encoded value after a non-secret name and
// scans it (the raw bytes are scanned as well, by the main loop). On a hit the whole encoded value is replaced by the redacted
// text, re-encoded with its markers left readable.
func (e *Engine) encodedValue(s string, v int, st *Stats, depth int, m *memo) (span, int, bool) {
	vs, ve := valueExtent(s, v, kindWhole)
	raw := s[vs:ve]
	if depth >= maxEmbed || vs >= ve || !strings.ContainsAny(raw, "%+") {
		return span{}, 0, false
	}
	// Later names inside this value ("a=%41+b=%42") were decoded with it.
	m.decodedUntil = ve
	dec, err := url.QueryUnescape(raw)
	if err != nil || dec == raw {
		return span{}, 0, false
	}
	var sub Stats
	red := e.text(dec, &sub, depth+1)
	if sub.Redacted == 0 {
		return span{}, 0, false
	}
	st.merge(sub)
	return span{start: vs, end: ve, repl: escapeKeepingMarkers(red)}, ve, true
}

// escapeKeepingMarkers query-escapes s but leaves markers as they are, so
// "[REDACTED:jwt]" stays readable in a URL.
func escapeKeepingMarkers(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		k := strings.Index(s, markerPrefix)
		for k >= 0 && markerLen(s[k:]) == 0 {
			n := strings.Index(s[k+1:], markerPrefix)
			if n < 0 {
				k = -1
				break
			}
			k += 1 + n
		}
		if k < 0 {
			b.WriteString(url.QueryEscape(s))
			break
		}
		n := markerLen(s[k:])
		b.WriteString(url.QueryEscape(s[:k]))
		b.WriteString(s[k : k+n])
		s = s[k+n:]
	}
	return b.String()
}
