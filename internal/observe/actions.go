package observe

import (
	"context"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// ActionsResult is observe actions' answer: the tab's recorded actions
// (internal/recorder) and main-frame navigations, oldest first.
type ActionsResult struct {
	TabID      int                     `json:"tab_id"`
	Entries    []capture.TimelineEntry `json:"entries"`
	NextCursor string                  `json:"next_cursor"`
	Truncated  bool                    `json:"truncated,omitempty"`
}

// actions answers observe actions. Its cursor is the timeline's.
func (o *Observer) actions(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, pg, err := o.listed(c)
	if err != nil {
		return nil, err
	}
	p := o.cfg.Store.Activity(tab, pg.after, pg.limit)
	r := ActionsResult{TabID: tab, Entries: p.Entries, NextCursor: cursor(p.Next), Truncated: p.Truncated}
	if r.Entries == nil {
		r.Entries = []capture.TimelineEntry{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d actions and navigations", tab, len(p.Entries))
	for _, e := range p.Entries {
		b.WriteString("\n")
		b.WriteString(timelineLine(e))
	}
	more(&b, r.Truncated, r.NextCursor)
	return mcpserver.PageResult(b.String(), r, new(untrusted.Page).AddValue(p.Entries))
}

// actionLine renders an action on one line: who, what, on what, with what.
func actionLine(a capture.Action) string {
	s := fmt.Sprintf("%s %s %s %s", a.Time.Format(clock), a.Source, a.Type, a.Target)
	if a.Selector != "" {
		s += " (" + a.Selector + ")"
	}
	switch {
	case a.Masked != "":
		s += " = [masked " + a.Masked + "]"
	case a.Type == "check" && a.Checked != nil:
		s += fmt.Sprintf(" checked=%v", *a.Checked)
	case a.Type == "key_press":
		s += " " + a.Keys
	case a.Value != "":
		s += " = " + quote(a.Value, 120)
	}
	if a.Frame != "" {
		s += " in frame " + a.Frame
	}
	return s
}
