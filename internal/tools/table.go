package tools

// The one table: every tool, every mode, its classification and arguments
// (TOOLS.md "Modes", SAFETY.md "Classification"). Modes are sorted by name
// within a tool's tier-1 and tier-2 blocks; TestTableHouseRules checks it.

type toolSpec struct {
	name, title, summary string
	openWorld            bool
	common               string
	modes                []modeSpec
}

type modeSpec struct {
	name    string
	class   Class
	tier    int
	args    string
	summary string
}

const (
	ro  = ReadOnly
	mut = Mutating
	sen = Sensitive
)

var table = []toolSpec{
	{
		name: "observe", title: "Observe the browser", openWorld: true, common: "tab_id",
		summary: "Read what the user's Chrome tab shows and recorded (read-only)",
		modes: []modeSpec{
			{"actions", ro, 1, "limit after_cursor", "navigations, clicks and inputs recorded in the tab (passwords never recorded)"},
			{"approvals", ro, 1, "", "pending approval requests and live grants for this session"},
			{"command_result", ro, 1, "correlation_id!", "the result of a call that answered still_processing or ran in the background"},
			{"error_bundles", ro, 1, "limit after_cursor summary", "each error with the network requests and actions around it"},
			{"errors", ro, 1, "limit after_cursor summary", "console errors and uncaught exceptions with stack, url, count, first/last seen"},
			{"logs", ro, 1, "level text limit after_cursor summary", "console messages, filterable by level and text"},
			{"network_bodies", ro, 1, "request_id|url body_path limit", "request and response bodies of captured requests"},
			{"network_waterfall", ro, 1, "scope url method status type limit after_cursor summary", "requests of the current page (scope all: every captured one) with method, url, status, type, timing, size, initiator"},
			{"page", ro, 1, "", "url, title, viewport, load state, tab id and frames"},
			{"page_tools", ro, 1, "", "the WebMCP tools the page registered (name, title, the page's description, input schema, hints), and how to turn WebMCP on when it is off"},
			{"pending_commands", ro, 1, "after_cursor limit", "this session's commands: running ones and recent results"},
			{"screenshot", ro, 1, "ref selector full_page format quality to_file", "viewport, full page or one element; sensitive fields masked in every frame, a frame out of reach painted black"},
			{"snapshot", ro, 1, "ref selector frame interactive_only depth limit find diff to_file", "accessibility tree with [eN] refs on interactive and named nodes; find: matches only; diff: changes since your last snapshot"},
			{"storage", ro, 1, "origin", "localStorage, sessionStorage and cookie names and flags (values redacted)"},
			{"tabs", ro, 1, "", "the session's tabs (opened by it or shared by the user) and the connected browsers"},
			{"timeline", ro, 1, "limit after_cursor summary", "merged timeline of console, network and action events"},
			{"vitals", ro, 1, "", "LCP, CLS, INP, FCP, TTFB"},
			{"websocket_events", ro, 1, "url limit after_cursor summary", "WebSocket frames sent and received per socket"},
		},
	},
	{
		name: "interact", title: "Act on the page", openWorld: true, common: "tab_id frame",
		summary: "Act on the user's Chrome tab with trusted input; mutating modes need the user's approval",
		modes: []modeSpec{
			{"back", mut, 1, "wait_until", "go back in history"},
			{"batch", mut, 1, "steps!", "run interact steps in order, stop on the first failure; one approval covers the listed mutating steps"},
			{"call_page_tool", mut, 1, "name! arguments", "call a WebMCP tool the page registered (observe page_tools), arguments checked against its schema; asks the user unless the page marked it read-only"},
			{"check", mut, 1, "ref|selector checked", "check or uncheck a checkbox or radio"},
			{"click", mut, 1, "ref|selector|x y button click_count modifiers", "click an element; returns what changed"},
			{"close_tab", mut, 1, "", "close a tab the session owns"},
			{"drag", mut, 1, "ref|selector|x y to_ref|to_selector|to_x to_y", "drag an element (or point) onto another"},
			{"execute_js", sen, 1, "script!", "evaluate JavaScript in the page (the user sees the whole script; at most 32 KiB; result size capped)"},
			{"explore_page", ro, 1, "limit", "page info, interactive snapshot and new errors in one call"},
			{"fill_form", mut, 1, "fields! submit", "fill several fields in order"},
			{"focus", ro, 1, "ref|selector", "focus an element"},
			{"forward", mut, 1, "wait_until", "go forward in history"},
			{"get_attribute", ro, 1, "ref|selector name!", "read one attribute of an element"},
			{"get_text", ro, 1, "ref|selector", "read an element's text"},
			{"get_value", ro, 1, "ref|selector", "read a form control's value"},
			{"handle_dialog", mut, 1, "accept! prompt_text", "accept or dismiss an alert, confirm or prompt"},
			{"hover", ro, 1, "ref|selector|x y", "move the mouse over an element"},
			{"key_press", mut, 1, "keys! ref selector", "press a key or chord, optionally on an element"},
			{"navigate", mut, 1, "url! wait_until browser", "open an http(s) URL or about:blank; without tab_id in a session with no tab (in that browser) it opens a new tab"},
			{"new_tab", mut, 1, "url wait_until browser", "open a new tab in the session's tab group (of the browser named)"},
			{"query", ro, 1, "selector! limit", "count and list the elements matching a selector"},
			{"refresh", mut, 1, "wait_until", "reload the page"},
			{"scroll_to", ro, 1, "ref|selector|x y", "scroll an element or point into view"},
			{"select", mut, 1, "ref|selector value!", "choose an option of a select"},
			{"switch_tab", ro, 1, "tab_id!", "make a tab the session owns its current tab"},
			{"type", mut, 1, "ref|selector text! clear", "type text into a field"},
			{"upload", sen, 1, "ref|selector files|file_contents", "set files on a file input: by path (refuses credential and key paths), or by content (file_contents; an agent on another machine)"},
			{"wait_for", ro, 1, "selector|text|url|network_idle state idle_ms", "wait until a selector is visible/hidden, text is present, the url matches or the network is idle (bounded by timeout_ms)"},
			{"wait_for_stable", ro, 1, "idle_ms", "wait until the DOM and network stay quiet for idle_ms"},
		},
	},
	{
		name: "analyze", title: "Analyze the page", openWorld: true, common: "tab_id",
		summary: "Conclusions about the page computed in the daemon (read-only)",
		modes: []modeSpec{
			{"accessibility", ro, 1, "selector wcag_level limit", "WCAG checks on the live page"},
			{"data_table", ro, 1, "selector limit", "a table on the page as rows"},
			{"dom", ro, 1, "ref selector depth limit", "DOM subtree with attributes"},
			{"error_clusters", ro, 1, "limit", "errors grouped by cause"},
			{"forms", ro, 1, "selector", "forms with their fields, labels and validation"},
			{"page_issues", ro, 1, "limit", "errors, failed requests, accessibility and security problems, ranked"},
			{"page_summary", ro, 1, "", "what the page is and what can be done on it"},
			{"performance", ro, 1, "", "timings, long tasks, largest resources"},
			{"security_audit", ro, 1, "", "cookie flags, mixed content, secrets in URLs or storage, missing headers"},
			{"link_health", ro, 2, "same_origin limit", "check the page's links"},
			{"visual_diff", ro, 2, "baseline! threshold", "compare a screenshot with a baseline"},
		},
	},
	{
		name: "generate", title: "Generate artifacts", openWorld: false, common: "tab_id",
		summary: "Artifacts from what was captured: Playwright scripts and tests, HAR, CSP, SARIF (read-only)",
		modes: []modeSpec{
			{"csp", ro, 1, "report_only", "a Content-Security-Policy from the origins observed"},
			{"har", ro, 1, "url to_file", "HAR 1.2 of captured traffic, redacted"},
			{"reproduction", ro, 1, "after_cursor to_file", "a Playwright script replaying the recorded actions"},
			{"sarif", ro, 1, "wcag_level to_file", "accessibility findings (analyze accessibility) as SARIF 2.1.0"},
			{"test", ro, 1, "name after_cursor to_file", "a Playwright test with assertions"},
			{"pr_summary", ro, 2, "", "a summary of the session for a pull request"},
		},
	},
	{
		name: "configure", title: "Configure Gasoline", openWorld: false,
		summary: "The Gasoline daemon itself: health, doctor, capabilities, policy, buffers, notes",
		modes: []modeSpec{
			{"agent_watch", mut, 1, "op!:enable,disable,status events rate_limit_per_min dedupe_window_seconds", "automatic read-only context on errors and failures"},
			{"audit_log", ro, 1, "limit after_cursor", "approval decisions (redacted)"},
			{"clear", mut, 1, "buffer", "empty capture buffers"},
			{"describe_capabilities", ro, 1, "tool mode", "the parameter guide for one mode (or the list of modes)"},
			{"doctor", ro, 1, "", "daemon-side checks, with a fix for each failure"},
			{"health", ro, 1, "", "daemon version, pid, transports, extension, sessions, memory (live heap, store sizes)"},
			{"load", ro, 1, "key!", "read a session note"},
			{"noise_rule", mut, 1, "op!:list,add,remove pattern", "hide recurring noise from errors and logs"},
			{"policy", mut, 1, "op!:get,set rules", "approval rules; set may only tighten them (add gate or deny rules, drop allow rules): loosening is the user's alone"},
			{"redaction", mut, 1, "op!:get,add_pattern,remove_pattern pattern", "redaction policy version, counters and user patterns; add_pattern masks more, removing one is the user's alone"},
			{"store", mut, 1, "key! value!", "save a session note under the state directory"},
			{"recording_start", mut, 2, "name", "start recording the user's actions"},
			{"recording_stop", mut, 2, "", "stop recording"},
		},
	},
}
