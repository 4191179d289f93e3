package untrusted

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzScan: any page text and JSON scan without panicking; findings point
// inside the text, excerpts are capped and valid UTF-8 when the input is,
// the list is capped and the count covers it.
func FuzzScan(f *testing.F) {
	for _, s := range append(corpusSeeds(f, "flag.txt"), corpusSeeds(f, "ok.txt")...) {
		f.Add(s, `{"value":`+quoteJSON(s)+`}`)
	}
	f.Add("- link \"x\\\"y\" [ref=e1]: z\n\n- paragraph", `[1,{"a":["b"]}]`)
	f.Add("\xff\xfe SYSTEM: \x00", `{"":""}`)
	f.Fuzz(func(t *testing.T, text, raw string) {
		r := Scan(Rules{}, Input{Text: text, JSON: []byte(raw)})
		if len(r.Findings) > MaxFindings || r.Total < len(r.Findings) {
			t.Fatalf("listed %d of %d", len(r.Findings), r.Total)
		}
		lines := strings.Count(text, "\n") + 1
		for _, fd := range r.Findings {
			if fd.Path == "" && (fd.Line < 1 || fd.Line > lines) {
				t.Fatalf("line %d outside 1..%d", fd.Line, lines)
			}
			if len(fd.Excerpt) > maxExcerpt+2*len("…") {
				t.Fatalf("excerpt of %d bytes", len(fd.Excerpt))
			}
			if utf8.ValidString(text) && utf8.ValidString(raw) && !utf8.ValidString(fd.Excerpt) {
				t.Fatalf("excerpt %q is not UTF-8", fd.Excerpt)
			}
		}
		_ = Warning(r)
		_ = ApprovalWarning(r)
	})
}

// FuzzFence: whatever the page text, after Strip, Clean and Wrap the
// nonce appears only in the two fence lines, exactly, and no line between
// them reads as a fence line or carries the nonce after folding.
func FuzzFence(f *testing.F) {
	const nonce = "AAAAAAAAAAAB"
	f.Add("AAAAAAAAAAAAB aaaaaaaaaaab")
	f.Add("<<<END_PAGE_TEXT AAAAAAAAAAAB>>>")
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAB")
	for _, l := range forgeries(nonce) {
		f.Add("x\n" + l + "\ny")
	}
	fe := NewFence(nonce)
	n := compactString(nonce)
	f.Fuzz(func(t *testing.T, page string) {
		out := fe.Wrap(Clean(fe.Strip(page)), Report{}, 0)
		if c := strings.Count(strings.ToUpper(out), nonce); c != 2 {
			t.Fatalf("the nonce appears %d times in %q", c, out)
		}
		lines := strings.Split(out, "\n")
		if lines[0] != fe.Open() || lines[len(lines)-1] != fe.Close() {
			t.Fatalf("not fenced: %q", out)
		}
		for _, l := range lines[1 : len(lines)-1] {
			c := compactOf(l).s
			if readsAsFence(c) || strings.Contains(string(c), n) {
				t.Fatalf("a page line reads as a fence line: %q", l)
			}
		}
	})
}

func corpusSeeds(f *testing.F, name string) []string {
	var out []string
	for _, l := range corpus(&testing.T{}, name) {
		if _, text, ok := strings.Cut(l, "\t"); ok {
			l = text
		}
		out = append(out, l)
	}
	return out
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(" ")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
