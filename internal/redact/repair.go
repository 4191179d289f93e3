package redact

import "strings"

// Truncated JSON. Capture cuts long console text and bodies, so the most
// common invalid JSON the engine sees is a valid document cut off at the
// end. Scanned as text it would lose the structural rules (name/value pairs,
// cookie objects, service accounts), so it is completed instead: the bytes
// that close it are appended, the whole is walked as JSON, and the appended
// bytes are cut off the output again.

// completion returns the bytes that close a JSON document cut off at the
// end of s, or false when s is not a prefix of a valid document.
func completion(s string) (string, bool) {
	const (
		needValue = iota // a value (array elements, after ':', the root)
		needKey          // a key, or '}' right after '{'
		needColon
		afterValue // ',' or a closer
	)
	var stack []byte
	state, first := needValue, true // first: just after '[' or '{'
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		switch {
		case state == needKey && c == '"', state == needValue && c == '"':
			end, open, ok := stringEnd(s, i)
			if !ok {
				return "", false
			}
			if open != "" {
				if state == needKey {
					open += ":null"
				}
				return open + closers(stack), true
			}
			i = end
			if state == needKey {
				state = needColon
			} else {
				state = afterValue
			}
		case state == needValue && (c == '{' || c == '['):
			stack = append(stack, c)
			state, first = needValue, true
			if c == '{' {
				state = needKey
			}
			i++
			continue
		case state == needValue && (c == '-' || isDigit(c)):
			j := i + 1
			for j < len(s) && (isDigit(s[j]) || strings.IndexByte(".eE+-", s[j]) >= 0) {
				j++
			}
			if j == len(s) {
				return numberTail(s[i:]) + closers(stack), true
			}
			i, state = j, afterValue
		case state == needValue && (c == 't' || c == 'f' || c == 'n'):
			lit := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
			rest := s[i:]
			if len(rest) < len(lit) && strings.HasPrefix(lit, rest) {
				return lit[len(rest):] + closers(stack), true
			}
			if !strings.HasPrefix(rest, lit) {
				return "", false
			}
			i, state = i+len(lit), afterValue
		case state == needColon && c == ':':
			i, state = i+1, needValue
		case len(stack) > 0 && (state == afterValue || first) && c == closerOf(stack[len(stack)-1]):
			stack = stack[:len(stack)-1]
			i, state = i+1, afterValue
			if len(stack) == 0 {
				return "", false // complete (or trailing data): not truncated
			}
		case state == afterValue && c == ',' && len(stack) > 0:
			state = needValue
			if stack[len(stack)-1] == '{' {
				state = needKey
			}
			i++
		default:
			return "", false
		}
		first = false
	}
	if len(stack) == 0 {
		return "", false
	}
	switch state {
	case needColon:
		return ":null" + closers(stack), true
	case needKey:
		if first {
			return closers(stack), true
		}
		return `"":null` + closers(stack), true
	case needValue:
		if first {
			return closers(stack), true
		}
		return "null" + closers(stack), true
	}
	return closers(stack), true
}

// stringEnd finds the end of the string starting at s[i]. When the input
// ends inside it, open holds the bytes that finish it (an unfinished
// escape, then the quote).
func stringEnd(s string, i int) (end int, open string, ok bool) {
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return j + 1, "", true
		case c < 0x20:
			return 0, "", false
		case c == '\\':
			if j+1 == len(s) {
				return 0, `\"`, true // "…\ + \" = an escaped backslash, closed
			}
			j++
			if s[j] == 'u' {
				have := min(4, len(s)-j-1)
				if !isHex4((s[j+1:j+1+have] + "0000")[:4]) {
					return 0, "", false
				}
				if have < 4 {
					return 0, strings.Repeat("0", 4-have) + `"`, true
				}
				j += 4
			}
		}
	}
	return 0, `"`, true
}

// numberTail completes a number cut off after its last byte.
func numberTail(n string) string {
	switch n[len(n)-1] {
	case '-', '.', 'e', 'E', '+':
		return "0"
	}
	return ""
}

func closerOf(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// closers closes every open container, innermost first.
func closers(stack []byte) string {
	b := make([]byte, len(stack))
	for i := range stack {
		b[i] = closerOf(stack[len(stack)-1-i])
	}
	return string(b)
}

// truncatedJSON redacts s as a truncated JSON document when it is one.
func (e *Engine) truncatedJSON(s string, st *Stats, depth int) (string, bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || t[0] != '{' && t[0] != '[' {
		return "", false
	}
	tail, ok := completion(s)
	if !ok {
		return "", false
	}
	doc, ok := parseDoc(s + tail)
	if !ok {
		return "", false
	}
	var sub Stats // counted only if this attempt is the answer
	out := e.walkJSON(s+tail, &doc, &sub, depth)
	if !strings.HasSuffix(out, tail) {
		return "", false // the completion itself was rewritten: scan instead
	}
	st.merge(sub)
	return out[:len(out)-len(tail)], true
}
