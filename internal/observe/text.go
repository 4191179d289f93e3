package observe

import (
	"fmt"
	"strings"
)

// clock is the time format of text answers (the date is in
// structuredContent).
const clock = "15:04:05.000"

// at renders a source location " (url:line:col)", or "".
func at(url string, line, col int) string {
	if url == "" {
		return ""
	}
	if line <= 0 {
		return " (" + url + ")"
	}
	if col <= 0 {
		return fmt.Sprintf(" (%s:%d)", url, line)
	}
	return fmt.Sprintf(" (%s:%d:%d)", url, line, col)
}

// more ends a list answer with how to read on.
func more(b *strings.Builder, truncated bool, next string) {
	if truncated {
		fmt.Fprintf(b, "\nmore follow: pass after_cursor %s", next)
		return
	}
	fmt.Fprintf(b, "\nnext_cursor %s", next)
}

// size renders a byte count compactly.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fkB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// ms renders milliseconds compactly.
func ms(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2fs", v/1000)
	}
	return fmt.Sprintf("%.0fms", v)
}

// quote cuts s to n bytes for a one-line text answer.
func quote(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return fmt.Sprintf("%q", s)
}
