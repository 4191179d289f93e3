package untrusted

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// A page must not be able to write a line that reads as one of Gasoline's
// own: the fence lines, the warning, the note on hidden text. Each line of
// a fenced body is compared with them after folding (fold.go) and after
// the look-alikes a person cannot tell apart in most fonts are merged
// (l, 1 and | with i; 0 with o), with everything but letters, digits and
// angle brackets dropped — so zero-width characters, homoglyphs,
// fullwidth or letter-spaced copies, combining marks, other separators and
// other letter case all compare equal. A line that reads as one of them is
// neutralised: it keeps its words, after a "[not Gasoline's]" mark, and
// every character that reads as an angle bracket becomes a parenthesis; a
// copy of the result's nonce, in any form, is removed.

// NotGasolines starts a neutralised line.
const NotGasolines = "[not Gasoline's] "

// compact is a folded line reduced for comparison with Gasoline's lines,
// and where each of its bytes came from in the original line.
type compact struct {
	s  []byte
	at []int32
}

func compactOf(line string) compact {
	f := fold(line)
	c := compact{s: make([]byte, 0, len(f.s)), at: make([]int32, 0, len(f.s)+1)}
	for i := 0; i < len(f.s); i++ {
		b := f.s[i]
		switch {
		case b == 'l' || b == '1' || b == '|':
			b = 'i'
		case b == '0':
			b = 'o'
		case b >= 'a' && b <= 'z' || b >= '2' && b <= '9' || b == '<' || b == '>':
		default:
			continue
		}
		c.s = append(c.s, b)
		c.at = append(c.at, int32(f.orig(i)))
	}
	c.at = append(c.at, int32(len(line)))
	return c
}

func compactString(s string) string { return string(compactOf(s).s) }

// The compact forms of Gasoline's lines, made on first use.
var (
	pageTextMark = sync.OnceValue(func() string { return compactString("PAGE_TEXT") })
	warningMarks = sync.OnceValue(func() []string {
		return []string{compactString("WARNING from Gasoline"), compactString("Gasoline left out")}
	})
)

// readsAsFence reports a compact line that reads as a fence line: the
// fence word next to an angle bracket, before or after (an id may sit
// between the word and its closing brackets).
func readsAsFence(c []byte) bool {
	s := string(c)
	for from := 0; ; {
		i := strings.Index(s[from:], pageTextMark())
		if i < 0 {
			return false
		}
		i += from
		before := strings.TrimSuffix(s[:i], "end")
		after := s[i+len(pageTextMark()):]
		if strings.HasSuffix(before, "<") || strings.ContainsAny(after[:min(len(after), 48)], "<>") {
			return true
		}
		from = i + 1
	}
}

func readsAsWarning(c []byte) bool {
	for _, m := range warningMarks() {
		if strings.Contains(string(c), m) {
			return true
		}
	}
	return false
}

// neutralise returns the body with every line that reads as one of
// Gasoline's lines, or that carries nonce in any form, made harmless.
func neutralise(body, nonce string) string {
	n := compactString(nonce)
	var b strings.Builder
	changed := false
	for i, line := range strings.Split(body, "\n") {
		out := neutralLine(line, n)
		changed = changed || out != line
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(out)
	}
	if !changed {
		return body
	}
	return b.String()
}

func neutralLine(line, nonce string) string {
	if line == "" || plainLine(line, nonce) {
		return line
	}
	line, c := withoutNonce(line, nonce)
	if !imitates(c.s, line) {
		return line
	}
	var b strings.Builder
	b.WriteString(NotGasolines)
	for _, r := range line {
		if r < utf8.RuneSelf {
			switch r {
			case '<':
				r = '('
			case '>':
				r = ')'
			}
			b.WriteRune(r)
			continue
		}
		f := string(appendFold(nil, r))
		switch {
		case strings.Contains(f, "<"):
			b.WriteByte('(')
		case strings.Contains(f, ">"):
			b.WriteByte(')')
		default:
			b.WriteRune(r)
		}
	}
	out, _ := withoutNonce(b.String(), nonce) // "A>B" made "A)B" reads "ab": a copy may appear
	return out
}

// withoutNonce removes every copy of nonce (compact) from line, in any
// form, and returns the line and its compact form.
func withoutNonce(line, nonce string) (string, compact) {
	c := compactOf(line)
	for k := len(line); k > 0; k-- { // each pass removes one copy
		i := strings.Index(string(c.s), nonce)
		if i < 0 {
			break
		}
		line = line[:c.at[i]] + Removed + line[c.at[i+len(nonce)]:]
		c = compactOf(line)
	}
	return line, c
}

// plainLine is the quick look for an ASCII line: it holds none of the
// compact forms of Gasoline's words or of the nonce, so it imitates
// nothing. (Letter-spaced text goes the long way: it folds together.)
func plainLine(line, nonce string) bool {
	var buf [256]byte
	c := buf[:0]
	for i := 0; i < len(line); i++ {
		b := line[i]
		switch {
		case b >= utf8.RuneSelf:
			return false
		case b >= 'A' && b <= 'Z':
			b += 'a' - 'A'
		}
		switch {
		case b == 'l' || b == '1' || b == '|':
			b = 'i'
		case b == '0':
			b = 'o'
		case b >= 'a' && b <= 'z' || b >= '2' && b <= '9' || b == '<' || b == '>':
		default:
			continue
		}
		c = append(c, b)
	}
	s := string(c)
	if strings.Contains(s, pageTextMark()) || strings.Contains(s, nonce) {
		return false
	}
	for _, m := range warningMarks() {
		if strings.Contains(s, m) {
			return false
		}
	}
	return !hasSpacedRun(line)
}

// ImitatesGasoline reports whether a line of page text reads as one of
// Gasoline's own lines — a fence line with any id, or its warning or note
// — after folding. Wrap neutralises every such line of a body, so no line
// between the fence lines of an answer does (a neutralised warning keeps
// its words after the NotGasolines mark).
func ImitatesGasoline(line string) bool { return imitates(compactOf(line).s, line) }

func imitates(c []byte, line string) bool {
	return readsAsFence(c) || readsAsWarning(c) && !strings.HasPrefix(line, NotGasolines)
}
