package export

import (
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Bounds of a pull-request summary.
const (
	summarySteps  = 40
	summaryPages  = 20
	summaryErrors = 20
	summaryText   = 160
)

// SummaryStats is what a PR summary counted, for structuredContent.
type SummaryStats struct {
	Actions        int `json:"actions"`
	UserActions    int `json:"user_actions"`
	ToolCalls      int `json:"tool_calls"`
	FailedCalls    int `json:"failed_calls"`
	Pages          int `json:"pages"`
	Errors         int `json:"errors"`          // distinct errors shown
	FailedRequests int `json:"failed_requests"` // shown
	Hidden         int `json:"hidden,omitempty"`
	Decisions      int `json:"approval_decisions"`
}

// PRSummary is a Markdown summary of a (redacted) session export for a pull
// request: what was done, the pages visited, the errors seen and the
// requests that failed. hidden is how many errors the noise rules hid from
// doc.Evidence. Page-derived text is set in code spans, so it cannot add
// links or headings.
func PRSummary(doc Document, hidden int) (string, SummaryStats) {
	st := SummaryStats{Hidden: hidden, Decisions: len(doc.Decisions)}
	var b strings.Builder
	b.WriteString("## Session summary\n\n")
	fmt.Fprintf(&b, "Recorded by Gasoline for %s", orText(doc.Session.Client, "an MCP client"))
	if doc.Session.TabID > 0 {
		fmt.Fprintf(&b, " on tab %d", doc.Session.TabID)
	}
	fmt.Fprintf(&b, "; generated %s.\n", doc.GeneratedAt.Format(time.RFC3339))

	b.WriteString("\n### What was done\n\n")
	steps := listSteps(&b, doc.Replay.Actions, &st)
	for _, c := range doc.ToolCalls {
		st.ToolCalls++
		if !c.OK {
			st.FailedCalls++
		}
	}
	fmt.Fprintf(&b, "\n%d actions (%d by hand during recordings), %d tool calls (%d failed), %d approval decisions.\n",
		st.Actions, st.UserActions, st.ToolCalls, st.FailedCalls, st.Decisions)
	if steps == 0 {
		b.WriteString("No browser actions were recorded.\n")
	}

	b.WriteString("\n### Pages visited\n\n")
	seen := map[string]bool{}
	for _, e := range doc.Timeline {
		if n := e.Navigation; n != nil && (n.Event == "navigated" || n.Event == "same_document") && n.URL != "" && !seen[n.URL] {
			seen[n.URL] = true
			if st.Pages++; st.Pages <= summaryPages {
				fmt.Fprintf(&b, "- %s\n", code(n.URL))
			}
		}
	}
	more(&b, st.Pages-summaryPages, "pages")
	if st.Pages == 0 {
		b.WriteString("None captured.\n")
	}
	evidence(&b, doc.Evidence, &st)
	return b.String(), st
}

// listSteps lists the actions as numbered steps; it returns how many
// it listed.
func listSteps(b *strings.Builder, actions []Action, st *SummaryStats) int {
	n := 0
	for _, a := range actions {
		if a.Source == "recording" {
			fmt.Fprintf(b, "- Recording %s started on %s\n", code(a.Target), code(orText(a.URL, "no page")))
			continue
		}
		st.Actions++
		if a.Source == "user" {
			st.UserActions++
		}
		if n++; n > summarySteps {
			continue
		}
		fmt.Fprintf(b, "%d. %s\n", n, step(a))
	}
	more(b, n-summarySteps, "actions")
	return n
}

// step describes one action in words.
func step(a Action) string {
	on := code(orText(a.Target, a.Selector))
	var s string
	switch FormOf(a) {
	case tools.ReplayGoto:
		s = "Opened " + code(a.URL)
	case tools.ReplayReload:
		s = "Reloaded the page"
	case tools.ReplayBack:
		s = "Went back"
	case tools.ReplayForward:
		s = "Went forward"
	case tools.ReplayClick:
		s = "Clicked " + on
	case tools.ReplayType:
		s = "Typed " + code(a.Text) + " into " + on
	case tools.ReplaySelect:
		s = "Chose " + code(a.Value) + " in " + on
	case tools.ReplayCheck:
		verb := "Checked "
		if a.Checked != nil && !*a.Checked {
			verb = "Unchecked "
		}
		s = verb + on
	case tools.ReplayPress:
		s = "Pressed " + code(a.Keys)
	case tools.ReplayFill:
		s = fmt.Sprintf("Filled %d form fields", len(a.Fields))
	default:
		s = strings.ReplaceAll(a.Mode, "_", " ") + " " + on
	}
	if a.Source == "user" {
		s += " (by hand)"
	}
	if !a.OK {
		s += " — failed"
	}
	return s
}

// evidence writes the errors and failed requests.
func evidence(b *strings.Builder, ev []Evidence, st *SummaryStats) {
	b.WriteString("\n### Errors seen\n\n")
	for _, e := range ev {
		if e.Kind != "error" {
			continue
		}
		if st.Errors++; st.Errors <= summaryErrors {
			fmt.Fprintf(b, "- **%d×** %s", max(e.Count, 1), code(e.Title))
			if e.URL != "" {
				fmt.Fprintf(b, " at %s", code(e.URL))
			}
			b.WriteString("\n")
		}
	}
	more(b, st.Errors-summaryErrors, "errors")
	if st.Errors == 0 {
		b.WriteString("None.\n")
	}
	if st.Hidden > 0 {
		fmt.Fprintf(b, "\n_%d more hidden by noise rules._\n", st.Hidden)
	}
	b.WriteString("\n### Failing requests\n\n")
	for _, e := range ev {
		if e.Kind != "network" {
			continue
		}
		if st.FailedRequests++; st.FailedRequests <= summaryErrors {
			fmt.Fprintf(b, "- %s — %s\n", code(e.Title), code(orText(e.Detail, "failed")))
		}
	}
	more(b, st.FailedRequests-summaryErrors, "failed requests")
	if st.FailedRequests == 0 {
		b.WriteString("None.\n")
	}
}

func more(b *strings.Builder, n int, what string) {
	if n > 0 {
		fmt.Fprintf(b, "- … and %d more %s\n", n, what)
	}
}

// code sets text in a Markdown code span on one line, cut to a bound; the
// fence is longer than any run of backticks inside it.
func code(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > summaryText {
		cut := summaryText
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	if s == "" {
		return "``"
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
