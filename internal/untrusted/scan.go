package untrusted

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Finding is one instruction-like passage of a result's page text, as
// structuredContent.suspected_instructions lists it: where it is (a line
// of the fenced text and the snapshot ref on it, or a path into
// structuredContent), an excerpt and why it was flagged.
type Finding struct {
	Ref     string `json:"ref,omitempty"`
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
	Excerpt string `json:"excerpt"`
	Reason  string `json:"reason"`
}

// MaxFindings caps the findings a result lists; Report.Total counts all.
const MaxFindings = 20

// excerptAround is how much text an excerpt keeps on each side of a match;
// maxExcerpt caps an excerpt.
const (
	keyTail       = 80 // bytes of a passage that tell it from another
	excerptAround = 40
	maxExcerpt    = 200
)

// Report is what Scan found in one result.
type Report struct {
	Findings []Finding // the first MaxFindings, text before structuredContent
	Total    int       // every distinct finding
}

// Input is the page text of one result: its text content and, when that
// is not merely the JSON of it, its structuredContent.
type Input struct {
	Text string
	// JSON is the structuredContent (nil: none). Its string values are
	// scanned with their paths; keys are not (they are Gasoline's).
	JSON []byte
	// TextIsJSON says the text content is the JSON itself: only the JSON's
	// strings are scanned, once.
	TextIsJSON bool
	// Page, when not nil, is the page text the result quotes (Page): only
	// its passages are scanned — never Gasoline's own words around them —
	// and Text and JSON only tell where each finding is. A passage that is
	// in neither (the redaction gateway took it out, say) is not reported:
	// an excerpt shows only what the agent received. Without a Page every
	// line of Text and every string of JSON is scanned but next_action
	// objects (Gasoline's).
	Page *Page
}

// passage is one stretch of the scan buffer and where it came from;
// find says that is not known yet (a page passage not found whole in the
// text): only a passage with a finding is looked for, and dropped when it
// is nowhere in the result.
type passage struct {
	off  int
	line int
	ref  string
	path string
	find bool
}

// scanBuf lays every passage on its own line, so that each rule runs once
// over the whole result.
type scanBuf struct {
	b  strings.Builder
	ps []passage
}

func (s *scanBuf) add(text string, p passage) {
	p.off = s.b.Len()
	s.ps = append(s.ps, p)
	s.b.WriteString(text)
	s.b.WriteString(sep)
}

// sep ends each passage in the scan buffer: a line break for the rules'
// sentence starts, after a NUL so that no rule's \s+ runs from one
// passage into the next.
const sep = "\x00\n"

// lines adds text line by line; a snapshot line's name and its text are
// passages of their own (a sentence starts at each).
func (s *scanBuf) lines(text string, first int, path string) {
	n := first
	for line := range strings.SplitSeq(text, "\n") {
		p := passage{line: n, ref: refOf(line), path: path}
		// A line that is a bare word reads as a snapshot line without name
		// or text ("main"), but page text can be one word too: it is a
		// passage like any other line.
		if name, rest, ok := snapshotLine(line); !ok || name == "" && rest == "" {
			s.add(line, p)
		} else {
			if name != "" {
				s.add(name, p)
			}
			if rest != "" {
				s.add(rest, p)
			}
		}
		n++
	}
}

// refOf returns the first snapshot ref on a line ("e12", written
// `[e12]`, or `[ref=e12]` in the older line format), or "".
func refOf(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] != '[' {
			continue
		}
		j := i + 1
		if strings.HasPrefix(line[j:], "ref=") {
			j += len("ref=")
		}
		if j >= len(line) || line[j] != 'e' {
			continue
		}
		k := j + 1
		for k < len(line) && line[k] >= '0' && line[k] <= '9' {
			k++
		}
		if k > j+1 && k < len(line) && line[k] == ']' {
			return line[j:k]
		}
	}
	return ""
}

// snapshotLine splits a snapshot line (`role "name" [states] [e12]:
// text`, indented by depth; older snapshots started it with "- ") into
// its name (unquoted) and text; ok is false for any other line.
func snapshotLine(line string) (name, text string, ok bool) {
	l := strings.TrimLeft(line, " ")
	l = strings.TrimPrefix(l, "- ")
	i := 0
	for i < len(l) && l[i] >= 'a' && l[i] <= 'z' {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	l = l[i:]
	if strings.HasPrefix(l, ` "`) {
		end := closingQuote(l, 1)
		if end < 0 {
			return "", "", false
		}
		q := l[1 : end+1]
		if u, err := strconv.Unquote(q); err == nil {
			name = u
		} else {
			name = q
		}
		l = l[end+1:]
	}
	for strings.HasPrefix(l, " [") {
		end := strings.IndexByte(l, ']')
		if end < 0 {
			return "", "", false
		}
		l = l[end+1:]
	}
	if l == "" {
		return name, "", true
	}
	if !strings.HasPrefix(l, ": ") {
		return "", "", false
	}
	return name, l[2:], true
}

// closingQuote returns the index of the quote that closes the quoted
// string opened at s[open], or -1.
func closingQuote(s string, open int) int {
	for i := open + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// json adds every string value of raw with its path (gjson syntax).
func (s *scanBuf) json(v gjson.Result, path string) {
	switch {
	case v.IsObject():
		v.ForEach(func(k, x gjson.Result) bool {
			if k.String() != "next_action" { // a call Gasoline suggests: its own words
				s.json(x, joinPath(path, k.String()))
			}
			return true
		})
	case v.IsArray():
		i := 0
		v.ForEach(func(_, x gjson.Result) bool {
			s.json(x, joinPath(path, strconv.Itoa(i)))
			i++
			return true
		})
	case v.Type == gjson.String:
		if path == "" {
			path = "$" // the whole structuredContent is this string
		}
		s.lines(v.String(), 0, path)
	}
}

// pathEscaper escapes what a gjson path reads in a key; made once, on
// first use (a replacer per key cost a fifth of the daemon's CPU on list
// reads).
var pathEscaper = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`)
})

func joinPath(path, k string) string {
	switch {
	case k == "":
		k = `""`
	case strings.ContainsAny(k, ".*?"):
		k = pathEscaper().Replace(k)
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

// Scan finds the instruction-like passages of one result with c. The
// classifier reads the passages folded (fold.go: look-alikes, invisible
// characters, letter-spacing); excerpts quote them as they are.
func Scan(c Classifier, in Input) Report {
	var s scanBuf
	if in.Page != nil {
		s.page(in)
	} else {
		if !in.TextIsJSON && in.Text != "" {
			s.lines(in.Text, 1, "")
		}
		if len(in.JSON) > 0 && gjson.ValidBytes(in.JSON) {
			s.json(gjson.ParseBytes(in.JSON), "")
		}
	}
	if len(s.ps) == 0 {
		return Report{}
	}
	buf := s.b.String()
	f := fold(buf)
	loc := locator{in: in}
	var r Report
	seen := map[string]bool{}
	for _, m := range c.Classify(f.s) {
		if m.Start < 0 || m.End > len(f.s) || m.Start >= m.End {
			continue // a classifier out of bounds: ignore the match, not the result
		}
		m.Start, m.End = f.orig(m.Start), f.orig(m.End)
		for m.Start < m.End-1 && strings.IndexByte(" \t\n\x00.!?;:-*#>\"'([", buf[m.Start]) >= 0 {
			m.Start++ // the rule's sentence boundary: the passage starts after it
		}
		i := sort.Search(len(s.ps), func(i int) bool { return s.ps[i].off > m.Start }) - 1
		p := s.ps[i]
		end := len(buf) - len(sep)
		if i+1 < len(s.ps) {
			end = s.ps[i+1].off - len(sep)
		}
		if m.Start >= end {
			continue // only the separator
		}
		if p.find {
			var ok bool
			if p.line, p.ref, p.path, ok = loc.find(buf[p.off:end]); !ok {
				continue // not in what the agent received
			}
		}
		// The same passage (the match and what follows it) counts once,
		// wherever the result carries it.
		key := m.Reason + "\x00" + strings.ToLower(strings.Join(strings.Fields(buf[m.Start:min(max(m.End, m.Start+keyTail), end)]), " "))
		if seen[key] {
			continue
		}
		seen[key] = true
		r.Total++
		if len(r.Findings) < MaxFindings {
			fd := Finding{Ref: p.ref, Path: p.path, Reason: m.Reason, Excerpt: excerpt(buf[p.off:end], m.Start-p.off, min(m.End, end)-p.off)}
			if p.path == "" {
				fd.Line = p.line
			}
			r.Findings = append(r.Findings, fd)
		}
	}
	return r
}

// page adds the passages of in.Page: one found whole in the text is
// scanned line by line with its lines' numbers and refs (a snapshot's
// tree); any other line is looked for when it has a finding.
func (s *scanBuf) page(in Input) {
	for _, p := range in.Page.Passages() {
		if !in.TextIsJSON {
			if i := strings.Index(in.Text, p); i >= 0 {
				s.lines(p, 1+strings.Count(in.Text[:i], "\n"), "")
				continue
			}
		}
		for line := range strings.SplitSeq(p, "\n") {
			if strings.TrimSpace(line) != "" {
				s.add(line, passage{find: true})
			}
		}
	}
}

// locator finds a page passage in a result: the first line of the text
// that holds it (as it is, or as %q writes it), else the first string of
// the JSON that does.
type locator struct {
	in     Input
	strs   []jsonString
	walked bool
}

type jsonString struct{ path, value string }

func (l *locator) find(p string) (line int, ref, path string, ok bool) {
	p = strings.TrimSpace(p)
	if !l.in.TextIsJSON {
		q := strconv.Quote(p)
		for _, form := range []string{p, q[1 : len(q)-1]} {
			if i := strings.Index(l.in.Text, form); i >= 0 {
				start := strings.LastIndexByte(l.in.Text[:i], '\n') + 1
				end := strings.IndexByte(l.in.Text[i:], '\n')
				if end < 0 {
					end = len(l.in.Text) - i
				}
				return 1 + strings.Count(l.in.Text[:i], "\n"), refOf(l.in.Text[start : i+end]), "", true
			}
		}
	}
	if !l.walked {
		l.walked = true
		if len(l.in.JSON) > 0 && gjson.ValidBytes(l.in.JSON) {
			walkStrings(gjson.ParseBytes(l.in.JSON), "", func(path, v string) { l.strs = append(l.strs, jsonString{path, v}) })
		}
	}
	for _, js := range l.strs {
		if strings.Contains(js.value, p) {
			return 0, "", js.path, true
		}
	}
	return 0, "", "", false
}

// walkStrings calls fn with every string of v and its path (gjson syntax).
func walkStrings(v gjson.Result, path string, fn func(path, value string)) {
	switch {
	case v.IsObject():
		v.ForEach(func(k, x gjson.Result) bool {
			walkStrings(x, joinPath(path, k.String()), fn)
			return true
		})
	case v.IsArray():
		i := 0
		v.ForEach(func(_, x gjson.Result) bool {
			walkStrings(x, joinPath(path, strconv.Itoa(i)), fn)
			i++
			return true
		})
	case v.Type == gjson.String:
		if path == "" {
			path = "$"
		}
		fn(path, v.String())
	}
}

// excerpt is the passage around [start, end), whitespace collapsed, cut to
// maxExcerpt, with "…" where it was cut.
func excerpt(text string, start, end int) string {
	from, to := max(0, start-excerptAround), min(len(text), end+excerptAround)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	s := strings.Join(strings.Fields(text[from:to]), " ")
	cut := to < len(text)
	if len(s) > maxExcerpt {
		n := maxExcerpt
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	if from > 0 {
		s = "…" + s
	}
	if cut {
		s += "…"
	}
	return s
}
