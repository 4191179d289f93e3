package redact

import (
	"sort"
	"strings"
)

// span is one replacement inside a string: s[start:end] becomes repl, or
// Marker(label) when repl is empty.
type span struct {
	start, end int
	label      string
	repl       string
}

// text redacts s, walking it as JSON when it is a JSON object or array (or
// one cut off at the end). depth counts how many times text has been
// unpacked from other text.
func (e *Engine) text(s string, st *Stats, depth int) string {
	if s == "" {
		return s
	}
	if depth < maxEmbed && looksJSON(s) {
		if doc, ok := parseDoc(s); ok {
			return e.walkJSON(s, &doc, st, depth+1)
		}
	}
	return e.notJSON(s, st, depth)
}

// notJSON redacts text that is not a whole JSON document: a truncated one
// is completed and walked; anything else is scanned. When scanning turns
// the text into valid JSON (a redacted stray quote can), the result is
// walked as JSON too, so that a second pass has nothing left to do.
func (e *Engine) notJSON(s string, st *Stats, depth int) string {
	if depth < maxEmbed {
		if out, ok := e.truncatedJSON(s, st, depth+1); ok {
			return out
		}
	}
	out := e.plain(s, st, depth)
	if out != s && depth < maxEmbed && looksJSON(out) {
		if doc, ok := parseDoc(out); ok {
			return e.walkJSON(out, &doc, st, depth+1)
		}
	}
	return out
}

// looksJSON is the cheap test before json.Valid: the first and last
// non-space bytes are a matching pair of brackets.
func looksJSON(s string) bool {
	t := strings.TrimSpace(s)
	if len(t) < 2 {
		return false
	}
	return t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']'
}

// plain scans s once for every built-in class, then applies user patterns.
func (e *Engine) plain(s string, st *Stats, depth int) string {
	spans := e.scan(s, st, depth)
	out := apply(s, spans)
	if len(e.c.user) > 0 {
		out = e.userPass(out, st)
	}
	return out
}

// scan walks s once. At every word start it tries the detectors for that
// first byte, then the key-value rule; a hit is recorded and the scan
// resumes after it. Bytes inside an existing marker are skipped.
func (e *Engine) scan(s string, st *Stats, depth int) []span {
	var spans []span
	m := &memo{}
	for i := 0; i < len(s); {
		c := s[i]
		if !trigger[c] {
			i++
			continue
		}
		if c == '[' {
			if n := markerLen(s[i:]); n > 0 {
				i += n
				continue
			}
			i++
			continue
		}
		if sp, next, ok := e.at(s, i, st, depth, m); ok {
			// Bytes between the trigger and the span (the user in
			// ://user:pass@, a key and its delimiter, multipart part
			// headers) are scanned too: nothing is skipped unread.
			if gs := gapStart(s, i); gs < sp.start {
				for _, g := range e.scan(s[gs:sp.start], st, depth) {
					g.start, g.end = g.start+gs, g.end+gs
					spans = append(spans, g)
				}
			}
			if sp.start < sp.end {
				spans = append(spans, sp)
			}
			i = next
			continue
		}
		if isWord(c) {
			i = wordEnd(s, i)
		} else {
			i++
		}
	}
	return spans
}

// gapStart is where the unread gap after a trigger at s[i] begins: after
// the trigger's word, or after the trigger byte.
func gapStart(s string, i int) int {
	if isWord(s[i]) {
		return wordEnd(s, i)
	}
	return i + 1
}

// trigger marks the bytes a detector can start at.
var trigger = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isWord(byte(c))
	}
	t['-'], t[':'], t['['] = true, true, true
	return t
}()

// wordEnd returns the index after the word starting at i.
func wordEnd(s string, i int) int {
	for i < len(s) && isWord(s[i]) {
		i++
	}
	return i
}

// at runs the detectors at s[i]. It returns the span to replace and where
// to resume, or false.
func (e *Engine) at(s string, i int, st *Stats, depth int, m *memo) (span, int, bool) {
	c := s[i]
	if isWord(c) && i > 0 && isWord(s[i-1]) {
		return span{}, 0, false
	}
	if sp, ok := e.token(s, i, m); ok {
		if !e.on(sp.label) {
			return span{}, 0, false
		}
		st.add(sp.label, 1)
		return sp, sp.end, true
	}
	if isLetter(c) || c == '_' {
		return e.keyValue(s, i, st, depth, m)
	}
	return span{}, 0, false
}

func isLetter(c byte) bool { return isUpper(c) || isLower(c) }

// apply builds the output of s with spans (sorted, disjoint) replaced.
func apply(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for _, sp := range spans {
		b.WriteString(s[pos:sp.start])
		if sp.repl != "" {
			b.WriteString(sp.repl)
		} else {
			b.WriteString(Marker(sp.label))
		}
		pos = sp.end
	}
	b.WriteString(s[pos:])
	return b.String()
}

// userPass applies the user patterns to s (already scanned). Matches are
// clipped around existing markers, so a pattern can neither break a marker
// nor match inside one.
func (e *Engine) userPass(s string, st *Stats) string {
	var spans []span
	for _, up := range e.c.user {
		if up.lit != "" && !strings.Contains(s, up.lit) {
			continue
		}
		if up.group {
			for _, m := range up.re.FindAllStringSubmatchIndex(s, -1) {
				if m[2] >= 0 && m[3] > m[2] {
					spans = append(spans, span{start: m[2], end: m[3], label: up.label})
				}
			}
			continue
		}
		for _, m := range up.re.FindAllStringIndex(s, -1) {
			if m[1] > m[0] {
				spans = append(spans, span{start: m[0], end: m[1], label: up.label})
			}
		}
	}
	if len(spans) == 0 {
		return s
	}
	spans = clipMarkers(s, spans)
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	merged := spans[:0]
	for _, sp := range spans {
		if n := len(merged); n > 0 && sp.start < merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	for _, sp := range merged {
		st.add(sp.label, 1)
	}
	return apply(s, merged)
}

// clipMarkers cuts every span around the markers in s. Spans are sorted
// first; one sweep over spans and markers keeps it linear.
func clipMarkers(s string, spans []span) []span {
	if !strings.Contains(s, markerPrefix) {
		return spans
	}
	var marks [][2]int
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], markerPrefix)
		if j < 0 {
			break
		}
		i += j
		if n := markerLen(s[i:]); n > 0 {
			marks = append(marks, [2]int{i, i + n})
			i += n
		} else {
			i++
		}
	}
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	var out []span
	k := 0 // first marker that may overlap the current span
	for _, sp := range spans {
		for k < len(marks) && marks[k][1] <= sp.start {
			k++
		}
		for x := k; x < len(marks) && marks[x][0] < sp.end; x++ {
			if marks[x][0] > sp.start {
				out = append(out, span{start: sp.start, end: marks[x][0], label: sp.label})
			}
			sp.start = max(sp.start, marks[x][1])
		}
		if sp.start < sp.end {
			out = append(out, sp)
		}
	}
	return out
}
