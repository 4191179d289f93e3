package pagetools

import (
	"fmt"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The codes of call_page_tool's errors. Their messages are Gasoline's
// words: an error is not fenced, so the page's words reach one only as a
// short quote (a tool name the agent gave, an exception's first line).
const (
	CodeWebMCPOff   = "webmcp_off"             // the browser (or this page) has no WebMCP
	CodeNotFound    = "page_tool_not_found"    // the page has no tool of that name (now)
	CodeAmbiguous   = "page_tool_ambiguous"    // several same-origin frames have a tool of that name
	CodeBadSchema   = "page_tool_bad_schema"   // the page's schema cannot be used to check the arguments
	CodeThrew       = "page_tool_threw"        // the page's tool threw or rejected
	CodeNoAnswer    = "page_tool_timeout"      // no answer within the call's budget; the call was cancelled
	CodeRemoved     = "page_tool_removed"      // the page removed the tool while it ran
	CodeNavigated   = "page_tool_navigated"    // the page (or the tool's frame) navigated while it ran
	CodeCanceled    = "page_tool_canceled"     // Chrome or the page cancelled the call
	CodeChanged     = "page_tool_changed"      // the tool changed after the user approved the call
	CodeAwaitsUser  = "page_tool_awaits_user"  // a form tool was filled and waits for the user to submit it
	CodeUnavailable = "page_tools_unavailable" // Chrome's WebMCP domain could not be enabled in the tab
)

// howToEnable tells the user how to turn WebMCP on.
const howToEnable = "to turn it on, open chrome://flags/#enable-webmcp-testing, set \"WebMCP for testing\" to Enabled and relaunch Chrome " +
	"(or start Chrome with --enable-features=WebMCP); a site taking part in Chrome's WebMCP origin trial has it without a flag"

func listNext(tab int) *tools.Next {
	args := map[string]any{"what": "page_tools"}
	if tab != 0 {
		args["tab_id"] = tab
	}
	return &tools.Next{Tool: "observe", Arguments: args}
}

func errOff(tab int) *tools.Error {
	return &tools.Error{Code: CodeWebMCPOff, Message: "this page has no WebMCP (document.modelContext is missing), so it has no tools to call; " + howToEnable,
		NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "page_tools", "tab_id": tab},
			AskUser: "WebMCP is off in your Chrome. Turn it on at chrome://flags/#enable-webmcp-testing and relaunch Chrome?"}}
}

func errNotFound(tab int, name string, have int) *tools.Error {
	return &tools.Error{Code: CodeNotFound,
		Message:    fmt.Sprintf("the page in tab %d has no tool named %s now (it lists %d); list them with observe page_tools and call one by its exact name", tab, quote(name), have),
		NextAction: listNext(tab)}
}

// quote is a short quote of page text (or of what the agent gave).
func quote(s string) string { return fmt.Sprintf("%q", clip(s, 80)) }

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
