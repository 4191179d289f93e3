package export

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func TestPRSummary(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	no := false
	doc := Document{
		GeneratedAt: at,
		Session:     Session{ID: "s", Client: "claude-code", TabID: 7},
		Replay: Replay{Actions: []Action{
			{Seq: 1, Mode: "navigate", URL: "http://app/login", OK: true},
			{Seq: 2, Mode: "type", Selector: "#user", Target: `textbox "User"`, Text: "ada", OK: true},
			{Seq: 3, Mode: "recording_start", Target: "pay", URL: "http://app/cart", OK: true, Source: "recording"},
			{Seq: 4, Mode: "check", Target: `checkbox "News"`, Checked: &no, OK: true, Source: "user"},
			{Seq: 5, Mode: "click", Target: "button \"Say `hi`\"\n[evil](http://x)", OK: false},
		}},
		ToolCalls: []ToolCall{{Tool: "interact", Mode: "type", OK: true}, {Tool: "interact", Mode: "click", OK: false}},
		Timeline: []capture.TimelineEntry{
			{Navigation: &capture.Navigation{Event: "navigated", URL: "http://app/login"}},
			{Navigation: &capture.Navigation{Event: "load", URL: "http://app/login"}},
			{Navigation: &capture.Navigation{Event: "navigated", URL: "http://app/login"}},
		},
		Evidence: []Evidence{
			{Kind: "error", Title: "TypeError: x is undefined", URL: "http://app/main.js", Count: 3},
			{Kind: "network", Title: "POST http://app/api/pay", Detail: "Internal Server Error"},
		},
	}
	md, st := PRSummary(doc, 2)
	want := "## Session summary\n\n" +
		"Recorded by Gasoline for claude-code on tab 7; generated 2026-11-24T12:00:00Z.\n\n" +
		"### What was done\n\n" +
		"1. Opened `http://app/login`\n" +
		"2. Typed `ada` into `textbox \"User\"`\n" +
		"- Recording `pay` started on `http://app/cart`\n" +
		"3. Unchecked `checkbox \"News\"` (by hand)\n" +
		"4. Clicked ``button \"Say `hi`\" [evil](http://x)`` — failed\n" +
		"\n4 actions (1 by hand during recordings), 2 tool calls (1 failed), 0 approval decisions.\n\n" +
		"### Pages visited\n\n- `http://app/login`\n\n" +
		"### Errors seen\n\n- **3×** `TypeError: x is undefined` at `http://app/main.js`\n\n_2 more hidden by noise rules._\n\n" +
		"### Failing requests\n\n- `POST http://app/api/pay` — `Internal Server Error`\n"
	assert.Equal(t, want, md)
	assert.Equal(t, SummaryStats{Actions: 4, UserActions: 1, ToolCalls: 2, FailedCalls: 1, Pages: 1, Errors: 1, FailedRequests: 1, Hidden: 2}, st)

	empty, _ := PRSummary(Document{GeneratedAt: at}, 0)
	assert.Contains(t, empty, "No browser actions were recorded.")
	assert.Contains(t, empty, "### Errors seen\n\nNone.\n")
}

func TestCodeSpan(t *testing.T) {
	assert.Equal(t, "`a b`", code("a\n  b"))
	assert.Equal(t, "`` `x` ``", code("`x`"))
	assert.Equal(t, "``", code(""))
	long := code(strings.Repeat("é", 200))
	assert.True(t, strings.HasSuffix(long, "…`") && len(long) < summaryText+10, long)
}

func TestReproductionOfARecording(t *testing.T) {
	acts := []Action{
		{Seq: 4, Mode: "recording_start", URL: "http://app/cart", Target: "pay", OK: true, Source: "recording"},
		{Seq: 5, Mode: "click", Selector: "#pay", OK: true, Source: "user"},
		{Seq: 6, Mode: "refresh", OK: true, Source: "user"},
	}
	doc := Document{Replay: ReplayOf(acts, "http://app/login", "", Viewport{})}
	script := Reproduction(doc)
	assert.Contains(t, script, "async function replay(page) {\n"+
		`  await page.goto("http://app/cart"); // recording "pay" starts here`+"\n"+
		`  await page.locator("#pay").click();`+"\n"+
		"  await page.reload();\n}")
	// A recording in the middle of a session is a comment there.
	mid := Reproduction(Document{Replay: ReplayOf(append([]Action{{Seq: 1, Mode: "navigate", URL: "http://app/login", OK: true}}, acts...), "", "", Viewport{})})
	assert.Contains(t, mid, `  // recording "pay" started on http://app/cart`)
	assert.Equal(t, 1, strings.Count(mid, "page.goto("))
}
