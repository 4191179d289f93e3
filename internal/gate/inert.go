package gate

import (
	"fmt"
	"strings"
	"unicode"
)

// inert makes text a prompt quotes from an agent or a page unable to
// act on the reader: every control character (a terminal escape, a
// carriage return that overwrites a line) and every bidi control (an
// override that shows `evil()` as `()live`) is written out as ⟨U+202E⟩, so
// the prompt shows what runs in the order it runs. multiline keeps line
// feeds and tabs (a script's layout), single-line text shows them too.
func inert(s string, multiline bool) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r, multiline) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafeRune(r, multiline) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unsafeRune(r rune, multiline bool) bool {
	if multiline && (r == '\n' || r == '\t') {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}

// inertAll applies inert to each line.
func inertAll(lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, s := range lines {
		out[i] = inert(s, false)
	}
	return out
}
