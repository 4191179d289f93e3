package actions

import (
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// Result is one action's answer: what was done and what changed. Its
// JSON is the tool result's structuredContent; Text is the compact line.
type Result struct {
	Action    string `json:"action"`
	TabID     int    `json:"tab_id"`
	Target    string `json:"target,omitempty"`    // what was acted on: button "Save"
	Message   string `json:"message"`             // clicked button "Save"
	Value     any    `json:"value,omitempty"`     // reads, execute_js, select
	Truncated bool   `json:"truncated,omitempty"` // Value was cut to the size cap
	// Matches counts the elements a selector matched when it matched more
	// than one (the first visible one was used).
	Matches  int          `json:"matches,omitempty"`
	Changes  Changes      `json:"changes"`
	Steps    []StepResult `json:"steps,omitempty"`    // batch, fill_form
	Snapshot string       `json:"snapshot,omitempty"` // explore_page
	Page     *PageInfo    `json:"page,omitempty"`     // explore_page
	// HiddenDropped counts text runs left out of get_text and explore_page
	// because no person sees them (internal/visible).
	HiddenDropped *int  `json:"hidden_dropped,omitempty"`
	ElapsedMS     int64 `json:"elapsed_ms"`
	// WindowsOpened counts the tabs or windows the page opened during the
	// action (CDP Page.windowOpen); OpenedTabs are those the session
	// adopted (the tab manager fills them in).
	WindowsOpened int         `json:"-"`
	OpenedTabs    []OpenedTab `json:"opened_tabs,omitempty"`
}

// OpenedTab is a tab the page opened during an action, now the session's.
type OpenedTab struct {
	TabID int    `json:"tab_id"`
	URL   string `json:"url"`
}

// StepResult is one step of a batch or one field of fill_form.
type StepResult struct {
	What    string       `json:"what"`
	OK      bool         `json:"ok"`
	Target  string       `json:"target,omitempty"`
	Message string       `json:"message"`
	Value   any          `json:"value,omitempty"`
	Error   *tools.Error `json:"error,omitempty"`
}

// Delta is a value before and after an action.
type Delta struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// DialogInfo is a JavaScript dialog the action opened.
type DialogInfo struct {
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"default_prompt,omitempty"`
	Open          bool   `json:"open"` // still open: handle it with handle_dialog
}

// Changes is what an action changed, from the page and the capture
// buffers.
type Changes struct {
	URL   *Delta `json:"url,omitempty"`
	Title *Delta `json:"title,omitempty"`
	// Navigated reports a new document in the main frame: every ref of the
	// tab is stale.
	Navigated bool         `json:"navigated,omitempty"`
	Dialogs   []DialogInfo `json:"dialogs,omitempty"`
	// Errors are new console errors and uncaught exceptions.
	Errors []string `json:"errors,omitempty"`
	// FailedRequests are requests that failed or got a status ≥ 400.
	FailedRequests []string `json:"failed_requests,omitempty"`
	// InFlight counts requests still loading when the action answered
	// (capture only); wait_for network idle waits for them.
	InFlight int `json:"in_flight,omitempty"`
	// Generation is the tab's snapshot generation before and after, when
	// it moved (a snapshot was taken meanwhile).
	Generation *[2]int `json:"snapshot_generation,omitempty"`
	// More counts errors and failed requests left out of the lists.
	More int `json:"more,omitempty"`
}

// empty reports that nothing changed.
func (c Changes) empty() bool {
	return c.URL == nil && c.Title == nil && !c.Navigated && len(c.Dialogs) == 0 && len(c.Errors) == 0 &&
		len(c.FailedRequests) == 0 && c.InFlight == 0 && c.Generation == nil
}

// PageText is the page text the result quotes (what the instruction
// scanner reads, untrusted.Page): the target, what was read, the page's
// title, URL, dialogs, errors and failed requests, what its messages
// quote — never Gasoline's words around them. Keep it with the fields.
func (r *Result) PageText() *untrusted.Page {
	p := new(untrusted.Page).Add(r.Target, r.Snapshot).AddQuoted(r.Message).AddValue(r.Value)
	if r.Page != nil {
		p.Add(r.Page.URL, r.Page.Title)
	}
	for _, s := range r.Steps {
		p.Add(s.Target).AddQuoted(s.Message).AddValue(s.Value)
		if s.Error != nil {
			p.AddQuoted(s.Error.Message)
		}
	}
	c := r.Changes
	for _, d := range []*Delta{c.URL, c.Title} {
		if d != nil {
			p.Add(d.From, d.To)
		}
	}
	for _, d := range c.Dialogs {
		p.Add(d.Message, d.DefaultPrompt)
	}
	return p.Add(c.Errors...).Add(c.FailedRequests...)
}

// Text is the compact, one-paragraph form of the result.
func (r *Result) Text() string {
	var b strings.Builder
	b.WriteString(r.Message)
	if r.Matches > 1 {
		fmt.Fprintf(&b, " (first visible of %d matches)", r.Matches)
	}
	for _, s := range r.Steps {
		mark := "ok"
		if !s.OK {
			mark = "FAILED"
		}
		fmt.Fprintf(&b, "\n- %s %s: %s", s.What, mark, s.Message)
	}
	if c := r.Changes.text(); c != "" {
		b.WriteString("\n" + c)
	}
	for i, o := range r.OpenedTabs {
		fmt.Fprintf(&b, "\nopened tab %d: %s", o.TabID, cmpOr(o.URL, "about:blank"))
		if i == 0 {
			b.WriteString(" (in your tab group; now your current tab)")
		}
	}
	return b.String()
}

func (c Changes) text() string {
	if c.empty() {
		return ""
	}
	var parts []string
	if c.Navigated {
		parts = append(parts, "navigated (refs are stale: take a new snapshot)")
	}
	if c.URL != nil {
		parts = append(parts, fmt.Sprintf("url %s → %s", c.URL.From, c.URL.To))
	}
	if c.Title != nil {
		parts = append(parts, fmt.Sprintf("title %q → %q", c.Title.From, c.Title.To))
	}
	for _, d := range c.Dialogs {
		s := fmt.Sprintf("%s dialog %q", d.Type, d.Message)
		if d.Open {
			s += " is open (answer it with handle_dialog)"
		}
		parts = append(parts, s)
	}
	if len(c.Errors) > 0 {
		parts = append(parts, "new errors: "+strings.Join(c.Errors, "; "))
	}
	if len(c.FailedRequests) > 0 {
		parts = append(parts, "failed requests: "+strings.Join(c.FailedRequests, "; "))
	}
	if c.More > 0 {
		parts = append(parts, fmt.Sprintf("%d more errors or failures (observe errors)", c.More))
	}
	if c.InFlight > 0 {
		parts = append(parts, fmt.Sprintf("%d requests in flight", c.InFlight))
	}
	if c.Generation != nil {
		parts = append(parts, fmt.Sprintf("snapshot generation %d → %d", c.Generation[0], c.Generation[1]))
	}
	return "changed: " + strings.Join(parts, "; ")
}
