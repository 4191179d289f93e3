package redact

import "unicode/utf8"

// Cutting text for an output that the gateway redacts afterwards (issue
// 27, "Tool results are redacted before they are cut"). Where the whole
// text is at hand it is redacted first, then cut; where it cannot be (a
// message built from a capped read, text cut in the page), it is cut with
// SafeCut, which never leaves the first part of a secret behind: a secret
// cut in half no longer looks like one, so the gateway would pass it.

// SafeCut returns where to cut s to at most n bytes: on a rune boundary,
// and never inside a run of token characters (letters, digits and
// - _ + / = . ~ %: keys, tokens, JWTs, base64), nor inside a number
// written in groups (a card number "4111 1111 1111 1111"). The run the cut
// would split goes whole instead — unless it is longer than any secret
// (maxRun): that is data, cut where asked.
func SafeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if n == 0 {
		return 0
	}
	sep := func(c byte) bool { return c == ' ' || c == '-' }
	splitsRun := tokenByte(s[n]) && tokenByte(s[n-1])
	splitsGroups := isDigit(s[n-1]) && sep(s[n]) && n+1 < len(s) && isDigit(s[n+1]) ||
		n >= 2 && sep(s[n-1]) && isDigit(s[n-2]) && isDigit(s[n])
	if !splitsRun && !splitsGroups {
		return n // the cut falls between runs
	}
	at := n
	if sep(s[n-1]) {
		n-- // "4111 |1111": the group before the separator goes too
	}
	digits := true
	for n > 0 && tokenByte(s[n-1]) {
		digits = digits && isDigit(s[n-1])
		n--
	}
	if at-n > maxRun {
		// No secret is this long a run (a long JWT is a few KiB): it is
		// data ("xxxx…", a base64 image), cut where asked.
		for at > 0 && !utf8.RuneStart(s[at]) {
			at--
		}
		return at
	}
	// A grouped number: "4111 1111 11|11 1111" drops every group.
	for digits && n >= 2 && (s[n-1] == ' ' || s[n-1] == '-') && isDigit(s[n-2]) {
		n--
		for n > 0 && isDigit(s[n-1]) {
			n--
		}
	}
	return n
}

// maxRun is the longest run SafeCut drops whole: longer runs are data.
const maxRun = 8 << 10

// Clip cuts s to at most n bytes with SafeCut and marks a cut with "…"
// (within n bytes). s is returned as it is when it fits.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	return s[:SafeCut(s, max(n-len(mark), 0))] + mark
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) ||
		c == '-' || c == '_' || c == '+' || c == '/' || c == '=' || c == '.' || c == '~' || c == '%'
}

// TrimCut is for text already cut at its end by someone else (a page
// script that stopped at a size cap): it drops what could be the first
// part of a secret at the end, as SafeCut would have.
func TrimCut(s string) string { return s[:SafeCut(s+"0", len(s))] }
