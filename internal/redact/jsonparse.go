package redact

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jnode is one parsed JSON value: its byte range and, for objects
// (key, value, key, value, …) and arrays, its children, which sit together
// in the document's node arena at [kidOff, kidOff+kidN).
//
// Offsets are int32 (inputs are capped at maxInputCap) so a node is 20
// bytes: the arena is the parse's main allocation.
type jnode struct {
	start, end   int32
	kidOff, kidN int32
	kind         byte // '{' '[' '"' '0' (number) 'l' (true, false, null)
	esc          bool // a string with escapes
}

// text returns the node's bytes.
func (n *jnode) text(in string) string { return in[n.start:n.end] }

// jdoc is a parsed document: the root and the arena holding every other
// node, children of one container contiguous.
type jdoc struct {
	root  jnode
	nodes []jnode
}

// kids returns n's children.
func (d *jdoc) kids(n *jnode) []jnode { return d.nodes[n.kidOff : n.kidOff+n.kidN] }

// parseDoc parses a whole JSON document, validating it as it goes (the
// grammar of RFC 8259, nesting up to maxDepth). It replaces json.Valid
// plus a second parse. ok is false for anything that is not exactly one
// valid JSON value surrounded by whitespace.
func parseDoc(in string) (doc jdoc, ok bool) {
	if len(in) > maxInputCap {
		return jdoc{}, false
	}
	p := jparser{in: in, nodes: make([]jnode, 0, len(in)/40+8)}
	i := skipWS(in, 0)
	if i == len(in) {
		return jdoc{}, false
	}
	root, i, ok := p.value(i)
	if !ok || skipWS(in, i) != len(in) {
		return jdoc{}, false
	}
	return jdoc{root: root, nodes: p.nodes}, true
}

// jparser is one parse: the arena and a stack where a container's children
// wait until they are all known, then move to the arena together.
type jparser struct {
	in    string
	depth int
	nodes []jnode
	stack []jnode
}

// value parses the value at in[i] and returns it and the index after it.
func (p *jparser) value(i int) (jnode, int, bool) {
	in := p.in
	if i >= len(in) {
		return jnode{}, i, false
	}
	n := jnode{start: int32(i)}
	var ok bool
	switch c := in[i]; {
	case c == '{' || c == '[':
		if p.depth++; p.depth > maxDepth {
			return n, i, false
		}
		i, ok = p.container(&n, i)
		p.depth--
	case c == '"':
		n.kind = '"'
		i, n.esc, ok = p.str(i)
	case c == '-' || isDigit(c):
		n.kind = '0'
		i, ok = p.number(i)
	default:
		n.kind = 'l'
		for _, lit := range [...]string{"true", "false", "null"} {
			if strings.HasPrefix(in[i:], lit) {
				i, ok = i+len(lit), true
				break
			}
		}
	}
	n.end = int32(i)
	return n, i, ok
}

// container parses an object or array starting at in[i] into n.
func (p *jparser) container(n *jnode, i int) (int, bool) {
	in := p.in
	open := in[i]
	n.kind = open
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	i = skipWS(in, i+1)
	if i < len(in) && in[i] == closer {
		return i + 1, true
	}
	base := len(p.stack)
	defer func() {
		n.kidOff, n.kidN = int32(len(p.nodes)), int32(len(p.stack)-base)
		p.nodes = append(p.nodes, p.stack[base:]...)
		p.stack = p.stack[:base]
	}()
	for {
		if open == '{' {
			if i >= len(in) || in[i] != '"' {
				return i, false
			}
			key, j, ok := p.value(i)
			if !ok {
				return j, false
			}
			p.stack = append(p.stack, key)
			i = skipWS(in, j)
			if i >= len(in) || in[i] != ':' {
				return i, false
			}
			i = skipWS(in, i+1)
		}
		v, j, ok := p.value(i)
		if !ok {
			return j, false
		}
		p.stack = append(p.stack, v)
		i = skipWS(in, j)
		switch {
		case i < len(in) && in[i] == ',':
			i = skipWS(in, i+1)
		case i < len(in) && in[i] == closer:
			return i + 1, true
		default:
			return i, false
		}
	}
}

// str parses a string starting at the quote in[i].
func (p *jparser) str(i int) (end int, esc, ok bool) {
	in := p.in
	for i++; i < len(in); i++ {
		switch c := in[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return i, esc, false
		case c == '\\':
			esc = true
			if i+1 >= len(in) {
				return i, esc, false
			}
			i++
			switch in[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(in) || !isHex4(in[i+1:i+5]) {
					return i, esc, false
				}
				i += 4
			default:
				return i, esc, false
			}
		}
	}
	return i, esc, false
}

// number parses -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? starting at in[i].
func (p *jparser) number(i int) (int, bool) {
	in := p.in
	digits := func(i int) (int, bool) {
		j := i
		for j < len(in) && isDigit(in[j]) {
			j++
		}
		return j, j > i
	}
	if in[i] == '-' {
		i++
	}
	switch {
	case i < len(in) && in[i] == '0':
		i++
	default:
		var ok bool
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	var ok bool
	if i < len(in) && in[i] == '.' {
		if i, ok = digits(i + 1); !ok {
			return i, false
		}
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	return i, true
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i]
		if !isDigit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func skipWS(in string, i int) int {
	for i < len(in) && (in[i] == ' ' || in[i] == '\t' || in[i] == '\n' || in[i] == '\r') {
		i++
	}
	return i
}

// unquote decodes a JSON string that parseDoc accepted, the way
// encoding/json does (unpaired surrogates become U+FFFD) except that
// invalid UTF-8 bytes are kept as they are: detectors see them as non-word
// bytes either way, and appendQuoted writes U+FFFD for any string that is
// rewritten.
func unquote(raw string, esc bool) string {
	body := raw[1 : len(raw)-1]
	if !esc {
		return body
	}
	b := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch body[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hexRune(body[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					r2 = hexRune(body[i+3 : i+7])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
		default: // " \ /
			b = append(b, body[i])
		}
	}
	return string(b)
}

func hexRune(s string) rune {
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case isDigit(c):
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendQuoted appends s as a JSON string. Unlike encoding/json it leaves
// <, > and & alone; it escapes quotes, backslashes, control characters,
// U+2028/U+2029 and invalid UTF-8 (as U+FFFD).
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
