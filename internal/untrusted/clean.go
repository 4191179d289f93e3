package untrusted

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clean removes from page text what a person cannot see but a model reads
// — zero-width characters, bidi controls, variation selectors, tag
// characters (Invisible) — and makes every line break a "\n" (carriage
// returns, vertical tabs, form feeds, U+0085, U+2028 and U+2029), so that
// the lines the fence check and the scanner see are the lines the agent
// reads.
func Clean(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c == '\r' || c == '\v' || c == '\f' {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					i++
					continue
				}
				c = '\n'
			case '\v', '\f':
				c = '\n'
			}
			b.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x85 || r == 0x2028 || r == 0x2029:
			b.WriteByte('\n')
		case Invisible(r):
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// CleanJSON removes invisible characters (Invisible) from the strings of
// a JSON document, written as themselves or as \u escapes; the rest of
// the document is left byte for byte.
func CleanJSON(raw []byte) []byte {
	if !mayHoldInvisible(raw) {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw) && raw[i+1] == 'u':
			r, n := jsonEscape(raw[i:])
			if n > 0 && Invisible(r) {
				i += n
				continue
			}
			n = max(n, 2)
			out = append(out, raw[i:i+n]...)
			i += n
		case c == '\\' && i+1 < len(raw):
			out = append(out, raw[i:i+2]...)
			i += 2
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(raw[i:])
			if !Invisible(r) {
				out = append(out, raw[i:i+n]...)
			}
			i += n
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// mayHoldInvisible is a quick look for anything CleanJSON would remove:
// a non-ASCII byte or a \u escape.
func mayHoldInvisible(raw []byte) bool {
	for i, c := range raw {
		if c >= utf8.RuneSelf || c == '\\' && i+1 < len(raw) && raw[i+1] == 'u' {
			return true
		}
	}
	return false
}

// jsonEscape decodes the \uXXXX escape (a surrogate pair when there are
// two) at the start of b: the rune and how many bytes it took, or n 0.
func jsonEscape(b []byte) (rune, int) {
	hex := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex(b)
	if !ok {
		return 0, 0
	}
	if r >= 0xD800 && r < 0xDC00 {
		if lo, ok := hex(b[6:]); ok && lo >= 0xDC00 && lo < 0xE000 {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
		}
	}
	return r, 6
}
