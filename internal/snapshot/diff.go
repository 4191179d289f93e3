package snapshot

import (
	"fmt"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Snapshot diffs (Options.Diff): what changed in a tab since the session's
// previous full snapshot of it, line by line. Lines are compared whole
// (depth included) with a Myers diff; a removed and an added line carrying
// the same ref (or, without refs, the same role at the same depth) are one
// changed line. Each run of changes is introduced by the path of its
// parent lines:
//
//	@ main > region "Tools" [e800] > list
//	~ button "Tool 40" [pressed] [e812]
//	  was: button "Tool 40" [e812]
//	+ status: Saved
//	- dialog "Confirm" [e901]
//
// Added and removed subtrees keep their indentation below the run's first
// line.

// maxHistory bounds the previous snapshots kept per tab (one per MCP
// session).
const maxHistory = 16

// diffTimeout bounds the diff itself; past it the diff is correct but may
// show more lines than the fewest.
const diffTimeout = 250 * time.Millisecond

// kept is a previous snapshot of a tab, as one session saw it.
type kept struct {
	gen   int
	nav   int
	lines []line // without their nodes
	used  time.Time
}

// swapPrev records a session's new full snapshot of the tab and returns
// the one it replaces (nil if none). Called with t.mu held.
func (t *tabRefs) swapPrev(session string, now *kept) *kept {
	prev := t.prev[session]
	t.prev[session] = now
	for len(t.prev) > maxHistory {
		var oldest string
		var at time.Time
		for sid, v := range t.prev {
			if at.IsZero() || v.used.Before(at) {
				oldest, at = sid, v.used
			}
		}
		delete(t.prev, oldest)
	}
	return prev
}

// bare copies lines without their nodes, for keeping.
func bare(ls []line) []line {
	out := make([]line, len(ls))
	for i, l := range ls {
		out[i] = line{depth: l.depth, text: l.text, ref: l.ref}
	}
	return out
}

// change is one line of a diff: '+' added, '-' removed, '~' changed (was
// holds the old line).
type change struct {
	op       byte
	at       int // index of the line in its snapshot (new for + and ~, old for -)
	now, was line
}

// DiffStats counts a diff's lines.
type DiffStats struct {
	Since   int `json:"since"` // the generation compared with
	Changed int `json:"changed"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// diffLines compares two snapshots' lines.
func diffLines(old, now []line) []change {
	ids := map[string]rune{}
	runes := func(ls []line) []rune {
		out := make([]rune, len(ls))
		for i, l := range ls {
			k := strings.Repeat(" ", l.depth) + l.text
			r, ok := ids[k]
			if !ok {
				r = rune(len(ids) + 1)
				if r >= 0xD800 { // past the surrogates
					r += 0x800
				}
				ids[k] = r
			}
			out[i] = r
		}
		return out
	}
	a, b := runes(old), runes(now)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	var out, gone []change
	i, j := 0, 0
	flush := func() { out, gone = append(out, gone...), nil }
	for _, d := range dmp.DiffMainRunes(a, b, false) {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			flush()
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			for k := range n {
				gone = append(gone, change{op: '-', at: i + k, was: old[i+k]})
			}
			i += n
		case diffmatchpatch.DiffInsert:
			for k := range n {
				l := now[j+k]
				if p := pair(gone, l); p >= 0 {
					out = append(out, change{op: '~', at: j + k, now: l, was: gone[p].was})
					gone = append(gone[:p], gone[p+1:]...)
					continue
				}
				out = append(out, change{op: '+', at: j + k, now: l})
			}
			j += n
		}
	}
	flush()
	return out
}

// pair finds the removed line an added line replaces: the same ref, or
// without refs the same role at the same depth.
func pair(gone []change, l line) int {
	for p, g := range gone {
		switch w := g.was; {
		case l.ref > 0 && w.ref == l.ref:
			return p
		case l.ref == 0 && w.ref == 0 && w.depth == l.depth && role(w.text) == role(l.text):
			return p
		}
	}
	return -1
}

func role(text string) string {
	end := strings.IndexAny(text, " :")
	if end < 0 {
		return text
	}
	return text[:end]
}

// writeDiff renders changes: runs of changes under the path of their
// parent lines.
func writeDiff(b *strings.Builder, cs []change, old, now []line) DiffStats {
	var st DiffStats
	lastPath := ""
	base := 0
	for k, c := range cs {
		ls, at := now, c.at
		if c.op == '-' {
			ls = old
		}
		run := k == 0 || (cs[k-1].op == '-') != (c.op == '-') || cs[k-1].at+1 != at || ls[at].depth < base
		if run {
			base = ls[at].depth
			if p := path(ls, at); p != lastPath || k == 0 {
				fmt.Fprintf(b, "@ %s\n", p)
				lastPath = p
			}
		}
		indent := strings.Repeat(" ", max(ls[at].depth-base, 0))
		switch c.op {
		case '+':
			st.Added++
			fmt.Fprintf(b, "+ %s%s\n", indent, c.now.text)
		case '-':
			st.Removed++
			fmt.Fprintf(b, "- %s%s\n", indent, c.was.text)
		case '~':
			st.Changed++
			fmt.Fprintf(b, "~ %s%s\n  %swas: %s\n", indent, c.now.text, indent, c.was.text)
		}
	}
	return st
}

// path names the parents of line at: their lines joined by " > ", or
// "top" for a line at depth 0.
func path(ls []line, at int) string {
	var parts []string
	for j, d := at-1, ls[at].depth; j >= 0 && d > 0; j-- {
		if ls[j].depth < d {
			parts = append(parts, ls[j].text)
			d = ls[j].depth
		}
	}
	if len(parts) == 0 {
		return "top"
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return strings.Join(parts, " > ")
}

// maxDiffShare: a diff longer than this share of the snapshot's lines is
// answered with the whole snapshot, which says more for fewer tokens.
const maxDiffShare = 2

// diffText answers a diff against the session's previous snapshot of the
// tab, or the whole snapshot when there is none, the tab navigated since,
// or most of the page changed.
func diffText(r *Result, ls []line, prev *kept, nav int) {
	whole := func(why string) {
		r.Text, r.Shown, r.Nodes = formatLines(ls, 0, Options{})
		r.Note = why + ": the whole snapshot"
	}
	switch {
	case prev == nil:
		whole("no previous snapshot of this tab in this session")
		return
	case prev.nav != nav:
		whole(fmt.Sprintf("the tab navigated since snapshot %d", prev.gen))
		return
	}
	cs := diffLines(prev.lines, ls)
	if len(cs) > len(ls)/maxDiffShare {
		whole(fmt.Sprintf("most of the page changed since snapshot %d", prev.gen))
		return
	}
	var b strings.Builder
	st := writeDiff(&b, cs, prev.lines, ls)
	st.Since = prev.gen
	if len(cs) == 0 {
		b.WriteString("no change\n")
	}
	r.Text, r.Shown, r.Nodes, r.Diff = b.String(), len(cs), len(ls), &st
	r.Note = fmt.Sprintf("diff since snapshot %d: %d changed, %d added, %d removed", prev.gen, st.Changed, st.Added, st.Removed)
}
