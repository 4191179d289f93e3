package observe

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// ErrorsResult is observe errors' answer: console errors and uncaught
// exceptions grouped by message, oldest latest-occurrence first.
type ErrorsResult struct {
	TabID       int                  `json:"tab_id"`
	Errors      []capture.ErrorGroup `json:"errors,omitempty"`
	Groups      int                  `json:"groups"`      // groups after the cursor
	Occurrences int                  `json:"occurrences"` // their occurrences
	NextCursor  string               `json:"next_cursor"`
	Truncated   bool                 `json:"truncated,omitempty"`
	Hidden      int                  `json:"hidden,omitempty"` // groups the noise rules hid
}

// errors answers observe errors. Its cursor is the timeline order of a
// group's latest occurrence: after_cursor returns the groups that are new
// or happened again since.
func (o *Observer) errors(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, pg, err := o.listed(c)
	if err != nil {
		return nil, err
	}
	groups, hidden := o.visible(o.errorGroupsAfter(tab, pg.after))
	r := ErrorsResult{TabID: tab, Groups: len(groups), NextCursor: cursor(pg.after), Hidden: hidden}
	for _, g := range groups {
		r.Occurrences += g.Count
	}
	if len(groups) > pg.limit {
		groups, r.Truncated = groups[:pg.limit], true
	}
	if n := len(groups); n > 0 {
		r.NextCursor = cursor(groups[n-1].LastOrder)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d distinct errors, %d occurrences%s", tab, r.Groups, r.Occurrences, hiddenNote(hidden))
	if pg.summary {
		for i, g := range groups {
			if i == 3 {
				break
			}
			fmt.Fprintf(&b, "\n- %s ×%d", g.Message, g.Count)
		}
		fmt.Fprintf(&b, "\nnext_cursor %s", r.NextCursor)
		return mcpserver.PageResult(b.String(), r, new(untrusted.Page).AddValue(groups))
	}
	r.Errors = groups
	for _, g := range groups {
		fmt.Fprintf(&b, "\n- [%s] %s ×%d%s (first %s, last %s)", g.Kind, g.Message, g.Count, at(g.URL, g.Line, g.Column),
			g.FirstSeen.Format(clock), g.LastSeen.Format(clock))
	}
	more(&b, r.Truncated, r.NextCursor)
	return mcpserver.PageResult(b.String(), r, new(untrusted.Page).AddValue(groups))
}

// LogsResult is observe logs' answer.
type LogsResult struct {
	TabID      int                    `json:"tab_id"`
	Entries    []capture.ConsoleEntry `json:"entries,omitempty"`
	Counts     map[string]int         `json:"counts,omitempty"` // summary: per level
	NextCursor string                 `json:"next_cursor"`
	Truncated  bool                   `json:"truncated,omitempty"`
	Missed     uint64                 `json:"missed,omitempty"` // evicted before they were read
	Hidden     int                    `json:"hidden,omitempty"` // entries the noise rules hid
}

// levelRank orders console levels; level filters are minimums.
var levelRank = map[string]int{"debug": 0, "log": 1, "info": 1, "warning": 2, "error": 3}

func (o *Observer) logs(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, pg, err := o.listed(c)
	if err != nil {
		return nil, err
	}
	minLevel, text := c.Args.Level, c.Args.Text
	if _, ok := levelRank[minLevel]; minLevel != "" && !ok {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "level must be debug, info, warning or error")
	}
	hidden := 0
	keep := func(e capture.ConsoleEntry) bool {
		if minLevel != "" && levelRank[e.Level] < levelRank[minLevel] {
			return false
		}
		if o.noise(e.Text, e.URL) {
			hidden++
			return false
		}
		return true
	}
	fetch := func(after uint64, limit int) capture.Page[capture.ConsoleEntry] {
		return o.cfg.Store.Logs(tab, capture.LogQuery{Text: text, After: after, Limit: limit})
	}
	limit := pg.limit
	if pg.summary {
		limit = capture.MaxLimit * 10 // count everything kept
	}
	p := collect(fetch, keep, func(e capture.ConsoleEntry) uint64 { return e.Seq }, pg.after, limit)
	r := LogsResult{TabID: tab, NextCursor: cursor(p.Next), Truncated: p.Truncated, Missed: p.Missed, Hidden: hidden}
	var b strings.Builder
	if pg.summary {
		r.Counts = map[string]int{}
		for _, e := range p.Entries {
			r.Counts[e.Level]++
		}
		fmt.Fprintf(&b, "tab %d: %d console messages", tab, len(p.Entries))
		for _, l := range []string{"error", "warning", "info", "log", "debug"} {
			if n := r.Counts[l]; n > 0 {
				fmt.Fprintf(&b, ", %d %s", n, l)
			}
		}
		fmt.Fprintf(&b, "%s; next_cursor %s", hiddenNote(hidden), r.NextCursor)
		return mcpserver.PageResult(b.String(), r, nil) // counts only
	}
	r.Entries = withoutCallSite(p.Entries)
	fmt.Fprintf(&b, "tab %d: %d console messages%s", tab, len(p.Entries), hiddenNote(hidden))
	if p.Missed > 0 {
		fmt.Fprintf(&b, " (%d older ones were evicted before they were read)", p.Missed)
	}
	for _, e := range p.Entries {
		fmt.Fprintf(&b, "\n%s %-7s %s%s", e.Time.Format(clock), e.Level, e.Text, at(e.URL, e.Line, e.Column))
	}
	more(&b, r.Truncated, r.NextCursor)
	return mcpserver.PageResult(b.String(), r, logsPage(p.Entries))
}

// withoutCallSite drops an entry's stack when all it says is the entry's
// own url, line and column (one frame, no function name: what
// console.error and console.warn in a page's top-level script record);
// the stack of a call inside a function stays. The store's entries are
// left as they are (timeline, generate and HAR read them).
func withoutCallSite(es []capture.ConsoleEntry) []capture.ConsoleEntry {
	out := es
	for i, e := range es {
		if len(e.Stack) != 1 {
			continue
		}
		if f := e.Stack[0]; f.Function != "" || f.URL != e.URL || f.Line != e.Line || f.Column != e.Column {
			continue
		}
		if &out[0] == &es[0] {
			out = slices.Clone(es)
		}
		out[i].Stack = nil
	}
	return out
}

// logsPage is the page text of console entries: what the page wrote and
// the scripts and functions it names. The level, type and time are
// Chrome's and Gasoline's words. Declared field by field, not through
// Page.AddValue, which encodes and decodes every entry and hands the
// fence each timestamp to redact (about a third of a logs read's time in
// the daemon: BenchmarkListReadStages).
func logsPage(es []capture.ConsoleEntry) *untrusted.Page {
	p := new(untrusted.Page)
	for _, e := range es {
		p.Add(e.Text, e.URL)
		for _, f := range e.Stack {
			p.Add(f.Function, f.URL)
		}
	}
	return p
}

// collect pages through a buffer with an extra filter until limit entries
// are kept or the buffer ends. seq returns an entry's cursor.
func collect[T any](fetch func(after uint64, limit int) capture.Page[T], keep func(T) bool, seq func(T) uint64, after uint64, limit int) capture.Page[T] {
	out := capture.Page[T]{Next: after}
	for {
		p := fetch(out.Next, min(limit, capture.MaxLimit))
		out.Missed += p.Missed
		for _, e := range p.Entries {
			if !keep(e) {
				continue
			}
			if len(out.Entries) == limit {
				out.Truncated = true
				return out
			}
			out.Entries = append(out.Entries, e)
			out.Next = seq(e)
		}
		out.Next = p.Next
		if !p.Truncated {
			return out
		}
	}
}

// errorGroupsAfter returns the tab's error groups whose latest occurrence
// is past the cursor after, oldest latest-occurrence first (the order and
// the cursor of errors and error_bundles).
func (o *Observer) errorGroupsAfter(tab int, after uint64) []capture.ErrorGroup {
	groups := slices.DeleteFunc(o.cfg.Store.Errors(tab), func(g capture.ErrorGroup) bool { return g.LastOrder <= after })
	slices.SortFunc(groups, func(a, b capture.ErrorGroup) int { return cmp.Compare(a.LastOrder, b.LastOrder) })
	return groups
}
