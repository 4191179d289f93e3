package capture

import (
	"strings"
	"unicode/utf8"
)

// ellipsis marks text cut to its limit.
const ellipsis = "…"

// truncate cuts s to at most max bytes on a UTF-8 boundary, ending it with an
// ellipsis, and reports whether it cut. The result shares memory with s; use
// clone for text that must not pin a larger buffer.
func truncate(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	if max < len(ellipsis) {
		return cutUTF8(s, max), true
	}
	return cutUTF8(s, max-len(ellipsis)) + ellipsis, true
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i]
		}
	}
	return s[:n]
}

// clip truncates s to max bytes and copies it, so the result does not keep a
// decoder's buffer alive. It ORs the cut into *cut.
func clip(s string, max int, cut *bool) string {
	if s == "" {
		return ""
	}
	s, c := truncate(s, max)
	*cut = *cut || c
	return strings.Clone(s)
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// containsFold reports whether substr is within s, ignoring case, without
// allocating.
func containsFold(s, substr string) bool {
	if substr == "" {
		return true
	}
	n := len(substr)
	for i := 0; i+n <= len(s); i++ {
		if strings.EqualFold(s[i:i+n], substr) {
			return true
		}
	}
	return false
}

// textBuilder joins text up to a byte limit and remembers whether it cut.
type textBuilder struct {
	b   strings.Builder
	max int
	cut bool
}

// str appends s, cutting it (and everything after) at the limit.
func (tb *textBuilder) str(s string) {
	if tb.cut {
		return
	}
	room := tb.max - tb.b.Len()
	if len(s) > room {
		room -= len(ellipsis)
		if room > 0 {
			tb.b.WriteString(cutUTF8(s, room))
		}
		if room >= 0 {
			tb.b.WriteString(ellipsis)
		}
		tb.cut = true
		return
	}
	tb.b.WriteString(s)
}

// full reports whether nothing more will be appended.
func (tb *textBuilder) full() bool { return tb.cut }

func (tb *textBuilder) String() string { return tb.b.String() }

// limit truncates s, a string the caller owns (e.g. fresh from a decoder),
// to max bytes. It copies only when it cuts, so a short prefix never pins a
// huge original. It ORs the cut into *cut.
func limit(s string, max int, cut *bool) string {
	if len(s) <= max {
		return s
	}
	*cut = true
	s, _ = truncate(s, max)
	return strings.Clone(s)
}

// truncateBytes is truncate for a byte slice, copying only the kept prefix.
func truncateBytes(b []byte, max int) (string, bool) {
	if len(b) <= max {
		return string(b), false
	}
	return truncate(string(b[:max+1]), max)
}
