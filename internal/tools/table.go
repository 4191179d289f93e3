package tools

import (
	"errors"
	"fmt"
	"slices"
)

// The one table: every tool and every mode's definition — its
// classification, arguments, whether its answers carry page text, the
// words an approval prompt says of it, how it is recorded and replayed,
// and how it uses the session's tabs (TOOLS.md "Modes", SAFETY.md
// "Classification"). Modes are sorted by name within a tool's tier-1 and
// tier-2 blocks; TestTableHouseRules checks it. Adding a mode is adding
// its line here and its handler (mcpserver.Server.Handle).

type toolSpec struct {
	name, title, summary string
	openWorld            bool
	common               string
	drivesPage           bool // every mode acts in the tab (interact)
	onPage               bool // every mode but those marked noPage reads the tab's page
	modes                []modeSpec
}

// modeSpec is one mode's line; Mode documents each field.
type modeSpec struct {
	name     string
	class    Class
	tier     int // 0 means 1
	args     string
	text     Text
	words    string
	readOp   string
	replay   Replay
	step     bool
	steps    bool
	tab      TabUse
	shows    string
	pageTool bool
	plan     bool
	why      string
	noPage   bool   // of a tool whose modes are on the page: this one reaches none
	paths    string // the argument listing files of the user's machine
	summary  string
}

const (
	ro  = ReadOnly
	mut = Mutating
	sen = Sensitive

	page = PageText
	own  = OwnText
)

func (ms modeSpec) mode(ts toolSpec) *Mode {
	tier := ms.tier
	if tier == 0 {
		tier = 1
	}
	return &Mode{Tool: ts.name, Name: ms.name, Class: ms.class, Tier: tier, Summary: ms.summary, Text: ms.text,
		Words: ms.words, ReadOp: ms.readOp, Replay: ms.replay, Step: ms.step, Steps: ms.steps, Tab: ms.tab,
		Shows: ms.shows, PageTool: ms.pageTool, Plan: ms.plan, Why: ms.why, DrivesPage: ts.drivesPage && ms.tab != TabNone,
		OnPage: ts.onPage && !ms.noPage, Paths: ms.paths}
}

// check refuses a definition that leaves a decision out or contradicts
// itself (the table then does not build: every test run catches it).
func (m *Mode) check() error {
	switch {
	case m.Text != PageText && m.Text != OwnText:
		return errors.New("says neither page nor own text: decide whether its answers can carry page text")
	case m.Class.Gated() != (m.Words != ""):
		return fmt.Errorf("class %s with words %q: every gated mode, and only a gated mode, has the words a prompt says of it", m.Class, m.Words)
	case (m.Class == Sensitive) != (m.Why != ""):
		return fmt.Errorf("class %s with why %q: every sensitive mode, and only one, says why it is (the prompt's risk line)", m.Class, m.Why)
	case m.Plan && (m.Tab != TabNone || m.Text != OwnText):
		return errors.New("a plan acts on no tab (TabNone) and answers in Gasoline's words")
	case m.DrivesPage && m.Replay == replayUnset:
		return errors.New("has no replay: decide whether it is recorded (a Replay form) or NotRecorded")
	case !m.DrivesPage && (m.Replay != replayUnset || m.Step || m.Steps || m.Tab != TabCurrent && m.Tab != TabNone || m.Shows != "" || m.PageTool):
		return errors.New("replay, step, steps, tab, shows and page tool are for modes that act in the tab")
	case m.PageTool && (m.Step || m.Replay.Recorded()):
		return errors.New("a page's own tool is no batch step and is not recorded: the page decides what it does")
	case m.Steps && (m.Step || m.Replay != ReplaySteps):
		return errors.New("a mode that runs steps is no step itself and is recorded step by step")
	case m.Tab.Destination() && !slices.ContainsFunc(m.Args, func(a Arg) bool { return a.Name == "url" }):
		return errors.New("a mode that goes somewhere takes url")
	case m.Shows != "" && !slices.ContainsFunc(m.Args, func(a Arg) bool { return a.Name == m.Shows }):
		return fmt.Errorf("shows %q, which it does not take", m.Shows)
	case m.Paths != "" && !slices.ContainsFunc(m.Args, func(a Arg) bool { return a.Name == m.Paths }):
		return fmt.Errorf("paths %q, which it does not take", m.Paths)
	case m.ReadOp != "":
		for _, a := range m.Args {
			if a.Name == "op" && slices.Contains(a.Enum, m.ReadOp) && m.Class.Gated() {
				return nil
			}
		}
		return fmt.Errorf("read op %q is not in the op enum of a gated mode", m.ReadOp)
	}
	return nil
}

var table = []toolSpec{
	{
		name: "observe", title: "Observe the browser", openWorld: true, common: "tab_id",
		summary: "Read what the user's Chrome tab shows and recorded (read-only)",
		onPage:  true,
		modes: []modeSpec{
			{name: "actions", class: ro, args: "limit after_cursor", text: page, summary: "navigations, clicks and inputs recorded in the tab (passwords never recorded)"},
			{name: "approvals", class: ro, noPage: true, text: page, summary: "this session's pending approval requests, live grants and plan, and how its changes were approved (counts)"},
			{name: "command_result", class: ro, noPage: true, args: "correlation_id!", text: page, summary: "the result of a call that answered still_processing or ran in the background"},
			{name: "downloads", class: ro, args: "limit", text: page, summary: "files the session's tabs downloaded into the state directory's downloads/ (never the user's Downloads): name, size, type, SHA-256, path, state; small text files in full"},
			{name: "error_bundles", class: ro, args: "limit after_cursor summary", text: page, summary: "each error with the network requests and actions around it"},
			{name: "errors", class: ro, args: "limit after_cursor summary", text: page, summary: "console errors and uncaught exceptions with stack, url, count, first/last seen"},
			{name: "logs", class: ro, args: "level text limit after_cursor summary", text: page, summary: "console messages, filterable by level and text"},
			{name: "network_bodies", class: ro, args: "request_id|url body_path limit", text: page, summary: "request and response bodies of captured requests"},
			{name: "network_waterfall", class: ro, args: "scope url method status type limit after_cursor summary", text: page, summary: "requests of the current page (scope all: every captured one) with method, url, status, type, timing, size, initiator"},
			{name: "page", class: ro, text: page, summary: "url, title, viewport, load state, tab id and frames"},
			{name: "page_tools", class: ro, text: page, summary: "the WebMCP tools the page registered (name, title, the page's description, input schema, hints), and how to turn WebMCP on when it is off"},
			{name: "pending_commands", class: ro, noPage: true, args: "after_cursor limit", text: own, summary: "this session's commands: running ones (and what each waits for) and recent results"},
			{name: "routes", class: ro, text: page, summary: "the tab's request routes (interact route): pattern, effect, response, hits and the latest matched URLs"},
			{name: "screenshot", class: ro, args: "ref selector full_page format quality to_file", text: own, summary: "viewport, full page or one element; sensitive fields masked in every frame, a frame out of reach painted black"},
			{name: "snapshot", class: ro, args: "ref selector frame interactive_only depth limit find diff to_file", text: page, summary: "accessibility tree with [eN] refs on interactive and named nodes; find: matches only; diff: changes since your last snapshot"},
			{name: "storage", class: ro, args: "origin", text: page, summary: "localStorage, sessionStorage and cookie names and flags (values redacted)"},
			{name: "tabs", class: ro, noPage: true, text: page, summary: "the session's tabs (opened by it or shared by the user) and the connected browsers"},
			{name: "timeline", class: ro, args: "limit after_cursor summary", text: page, summary: "merged timeline of console, network and action events"},
			{name: "vitals", class: ro, text: page, summary: "LCP, CLS, INP, FCP, TTFB"},
			{name: "websocket_events", class: ro, args: "url limit after_cursor summary", text: page, summary: "WebSocket frames sent and received per socket"},
		},
	},
	{
		name: "interact", title: "Act on the page", openWorld: true, common: "tab_id frame",
		summary:    "Act on the user's Chrome tab with trusted input; mutating modes need the user's approval (several changes on a site: propose a plan first)",
		drivesPage: true,
		onPage:     true,
		modes: []modeSpec{
			{name: "back", class: mut, args: "wait_until", text: page, replay: ReplayBack, step: true, words: "Go back in the tab's history", summary: "go back in history"},
			{name: "batch", class: mut, args: "steps!", text: page, replay: ReplaySteps, steps: true, words: "Run several page actions in a row", summary: "run interact steps in order, stop on the first failure; one approval covers the listed mutating steps"},
			{name: "call_page_tool", class: mut, args: "name! arguments", text: page, replay: NotRecorded, pageTool: true, words: "Call one of the page's own tools (WebMCP): the page's code runs with these arguments", summary: "call a WebMCP tool the page registered (observe page_tools), arguments checked against its schema; asks the user unless the page marked it read-only"},
			{name: "check", class: mut, args: "ref|selector checked", text: page, replay: ReplayCheck, step: true, words: "Tick or untick a checkbox", summary: "check or uncheck a checkbox or radio"},
			{name: "click", class: mut, args: "ref|selector|x y button click_count modifiers", text: page, replay: ReplayClick, step: true, words: "Click on the page", summary: "click an element; returns what changed"},
			{name: "close_tab", class: mut, noPage: true, text: page, replay: NotRecorded, tab: TabAny, words: "Close a tab", summary: "close a tab the session owns"},
			{name: "drag", class: mut, args: "ref|selector|x y to_ref|to_selector|to_x to_y", text: page, replay: ReplayComment, step: true, words: "Drag something on the page", summary: "drag an element (or point) onto another"},
			{name: "emulate", class: mut, args: "device viewport color_scheme reduced_motion locale timezone geolocation network cpu_slowdown reset", text: page, replay: NotRecorded, words: "Make the tab behave like another device or network (screen size, colour scheme, location, slow network or CPU) until the agent's session ends", summary: "put the tab under device and network conditions (merged with those in force; reset clears them) until the session ends; observe page shows them"},
			{name: "execute_js", class: sen, args: "script!", text: page, replay: ReplayComment, step: true, shows: "script", why: "runs its own script in the page", words: "Run its own JavaScript in the page (a script can read and change anything the page can, and send it anywhere)", summary: "evaluate JavaScript in the page (the user sees the whole script; at most 32 KiB; result size capped)"},
			{name: "explore_page", class: ro, args: "limit", text: page, replay: NotRecorded, step: true, summary: "page info, interactive snapshot and new errors in one call"},
			{name: "fill_form", class: mut, args: "fields! submit", text: page, replay: ReplayFill, step: true, words: "Fill in a form", summary: "fill several fields in order"},
			{name: "focus", class: ro, args: "ref|selector", text: page, replay: ReplayFocus, step: true, summary: "focus an element"},
			{name: "forward", class: mut, args: "wait_until", text: page, replay: ReplayForward, step: true, words: "Go forward in the tab's history", summary: "go forward in history"},
			{name: "get_attribute", class: ro, args: "ref|selector name!", text: page, replay: NotRecorded, step: true, summary: "read one attribute of an element"},
			{name: "get_text", class: ro, args: "ref|selector", text: page, replay: NotRecorded, step: true, summary: "read an element's text"},
			{name: "get_value", class: ro, args: "ref|selector", text: page, replay: NotRecorded, step: true, summary: "read a form control's value"},
			{name: "handle_dialog", class: mut, args: "accept! prompt_text", text: page, replay: ReplayComment, step: true, words: "Answer a dialog the page opened", summary: "accept or dismiss an alert, confirm or prompt"},
			{name: "hover", class: ro, args: "ref|selector|x y", text: page, replay: ReplayHover, step: true, summary: "move the mouse over an element"},
			{name: "key_press", class: mut, args: "keys! ref selector", text: page, replay: ReplayPress, step: true, words: "Press keys on the page", summary: "press a key or chord, optionally on an element"},
			{name: "navigate", class: mut, args: "url! wait_until browser", text: page, replay: ReplayGoto, tab: TabOpens, words: "Go to another page in a tab", summary: "open an http(s) URL or about:blank; without tab_id in a session with no tab (in that browser) it opens a new tab"},
			{name: "new_tab", class: mut, noPage: true, args: "url wait_until browser", text: page, replay: ReplayGoto, tab: TabNew, words: "Open a new tab", summary: "open a new tab in the session's tab group (of the browser named)"},
			{name: "plan", class: mut, args: "intent! origins! actions! minutes high", noPage: true, text: own, tab: TabNone, plan: true, words: "Approve a plan once: the changes it lists run on the sites it names without asking you each time, until it ends (anything else still asks)", summary: "propose what you will do on a few sites; once approved, their medium-risk calls of those modes run unasked until it ends; high items (high: [{what, risk: submit|download|named, target}]) only if the user ticks them; execute_js, upload and other sites always ask"},
			{name: "query", class: ro, args: "selector! limit", text: page, replay: NotRecorded, step: true, summary: "count and list the elements matching a selector"},
			{name: "refresh", class: mut, args: "wait_until", text: page, replay: ReplayReload, step: true, words: "Reload the page", summary: "reload the page"},
			{name: "route", class: mut, args: "url_pattern! block status_code headers body delay_ms method type", text: page, replay: NotRecorded, words: "Change what the tab's page receives from the network: block requests, answer them with made-up responses or delay them, until the agent's session ends", summary: "block, fulfil or delay the tab's requests matching url_pattern until unroute or the session ends; the newest matching route wins"},
			{name: "scroll_to", class: ro, args: "ref|selector|x y", text: page, replay: ReplayScroll, step: true, summary: "scroll an element or point into view"},
			{name: "select", class: mut, args: "ref|selector value!", text: page, replay: ReplaySelect, step: true, words: "Choose an option in a list", summary: "choose an option of a select"},
			{name: "switch_tab", class: ro, noPage: true, args: "tab_id!", text: page, replay: NotRecorded, summary: "make a tab the session owns its current tab"},
			{name: "type", class: mut, args: "ref|selector text! clear", text: page, replay: ReplayType, step: true, words: "Type text into the page", summary: "type text into a field"},
			{name: "unroute", class: mut, args: "url_pattern", text: page, replay: NotRecorded, words: "Stop changing what the tab's page receives from the network", summary: "remove the tab's routes with url_pattern, or (without it) all of them"},
			{name: "upload", class: sen, paths: "files", args: "ref|selector files|file_contents", text: page, replay: ReplayComment, step: true, why: "gives the page files from this computer", words: "Give the page files from this computer", summary: "set files on a file input: by path (refuses credential and key paths), or by content (file_contents; an agent on another machine)"},
			{name: "wait_for", class: ro, args: "selector|text|url|network_idle state idle_ms", text: page, replay: NotRecorded, step: true, summary: "wait until a selector is visible/hidden, text is present, the url matches or the network is idle (bounded by timeout_ms)"},
			{name: "wait_for_stable", class: ro, args: "idle_ms", text: page, replay: NotRecorded, step: true, summary: "wait until the DOM and network stay quiet for idle_ms"},
		},
	},
	{
		name: "analyze", title: "Analyze the page", openWorld: true, common: "tab_id",
		summary: "Conclusions about the page computed in the daemon (read-only, but performance_trace reloads the page)",
		onPage:  true,
		modes: []modeSpec{
			{name: "accessibility", class: ro, args: "selector wcag_level limit", text: page, summary: "WCAG checks on the live page"},
			{name: "data_table", class: ro, args: "selector limit", text: page, summary: "a table on the page as rows"},
			{name: "dom", class: ro, args: "ref selector depth limit", text: page, summary: "DOM subtree with attributes"},
			{name: "error_clusters", class: ro, args: "limit", text: page, summary: "errors grouped by cause"},
			{name: "forms", class: ro, args: "selector", text: page, summary: "forms with their fields, labels and validation"},
			{name: "page_issues", class: ro, args: "limit", text: page, summary: "errors, failed requests, accessibility and security problems, ranked"},
			{name: "page_summary", class: ro, text: page, summary: "what the page is and what can be done on it"},
			{name: "performance", class: ro, text: page, summary: "timings, long tasks, largest resources"},
			{name: "performance_trace", class: mut, args: "duration_ms", text: page, words: "Reload the page (or watch what happens next) while recording a performance trace", summary: "trace a reload (or duration_ms of what happens next): LCP element and phases, CLS and what moved, INP, long tasks and scripts, render-blocking requests, third parties; raw trace under exports/ for DevTools (mutating: it reloads)"},
			{name: "security_audit", class: ro, text: page, summary: "cookie flags, mixed content, secrets in URLs or storage, missing headers"},
			{name: "link_health", class: ro, tier: 2, args: "same_origin limit", text: page, summary: "check the page's links"},
			{name: "visual_diff", class: ro, tier: 2, args: "baseline! threshold", text: page, summary: "compare a screenshot with a baseline"},
		},
	},
	{
		name: "generate", title: "Generate artifacts", openWorld: false, common: "tab_id",
		summary: "Artifacts from what was captured: Playwright scripts and tests, HAR, CSP, SARIF; a PDF of the page (read-only)",
		modes: []modeSpec{
			{name: "csp", class: ro, args: "report_only", text: page, summary: "a Content-Security-Policy from the origins observed"},
			{name: "har", class: ro, args: "url to_file", text: page, summary: "HAR 1.2 of captured traffic, redacted"},
			{name: "pdf", class: ro, text: page, summary: "the page printed to PDF under exports/ (sensitive fields masked as in screenshots): path, size, pages"},
			{name: "reproduction", class: ro, args: "after_cursor to_file", text: page, summary: "a Playwright script replaying the recorded actions"},
			{name: "sarif", class: ro, args: "wcag_level to_file", text: page, summary: "accessibility findings (analyze accessibility) as SARIF 2.1.0"},
			{name: "test", class: ro, args: "name after_cursor to_file", text: page, summary: "a Playwright test with assertions"},
			{name: "pr_summary", class: ro, tier: 2, text: page, summary: "a summary of the session for a pull request"},
		},
	},
	{
		name: "configure", title: "Configure Gasoline", openWorld: false,
		summary: "The Gasoline daemon itself: health, doctor, capabilities, policy, buffers, notes",
		modes: []modeSpec{
			{name: "agent_watch", class: mut, args: "op!:enable,disable,status events rate_limit_per_min dedupe_window_seconds", text: own, readOp: "status", words: "Change Gasoline's automatic read-only checks on errors and failed requests", summary: "automatic read-only context on errors and failures"},
			{name: "audit_log", class: ro, args: "limit after_cursor", text: page, summary: "approval decisions (redacted)"},
			{name: "clear", class: mut, args: "buffer", text: own, words: "Clear data Gasoline captured (logs, errors, network)", summary: "empty capture buffers"},
			{name: "describe_capabilities", class: ro, args: "tool mode", text: own, summary: "the parameter guide for one mode (or the list of modes)"},
			{name: "doctor", class: ro, text: own, summary: "daemon-side checks, with a fix for each failure"},
			{name: "health", class: ro, text: own, summary: "daemon version, pid, transports, extension, sessions, memory (live heap, store sizes)"},
			{name: "load", class: ro, args: "key!", text: own, summary: "read a session note"},
			{name: "noise_rule", class: mut, args: "op!:list,add,remove pattern", text: own, readOp: "list", words: "Change which recurring errors and logs Gasoline hides from the agent as noise", summary: "hide recurring noise from errors and logs"},
			{name: "policy", class: mut, args: "op!:get,set rules", text: own, readOp: "get", words: "Change which actions need your approval", summary: "approval rules; set may only tighten them (add gate or deny rules, drop allow rules): loosening is the user's alone"},
			{name: "redaction", class: mut, args: "op!:get,add_pattern,remove_pattern pattern", text: own, readOp: "get", words: "Change what Gasoline hides from the agent", summary: "redaction policy version, counters and user patterns; add_pattern masks more, removing one is the user's alone"},
			{name: "store", class: mut, args: "key! value!", text: own, words: "Save a note in Gasoline's state folder", summary: "save a session note under the state directory"},
			{name: "recording_start", class: mut, tier: 2, args: "name", text: own, words: "Start recording what you do in the tab", summary: "start recording the user's actions"},
			{name: "recording_stop", class: mut, tier: 2, text: own, words: "Stop recording what you do in the tab", summary: "stop recording"},
		},
	},
}
