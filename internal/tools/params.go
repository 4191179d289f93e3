package tools

import "sync"

// Type is a JSON type an argument takes.
type Type string

// The argument types.
const (
	String  Type = "string"
	Integer Type = "integer"
	Number  Type = "number"
	Boolean Type = "boolean"
	Array   Type = "array"
	Object  Type = "object"
)

// Param describes one argument name. Names are kept from the original
// Gasoline so existing prompts keep working (TOOLS.md, "Argument names").
type Param struct {
	Name    string   `json:"name"`
	Type    Type     `json:"type"`
	Items   Type     `json:"items,omitempty"` // element type of an array
	Desc    string   `json:"description"`
	Enum    []string `json:"enum,omitempty"`
	Default any      `json:"default,omitempty"`
	Min     *float64 `json:"minimum,omitempty"`
	Max     *float64 `json:"maximum,omitempty"`
	// Example is a value used to build example calls.
	Example any `json:"-"`
}

func bound(v float64) *float64 { return &v }

// MaxTimeoutMS bounds timeout_ms: no call waits longer than this.
const MaxTimeoutMS = 300_000

// DefaultTimeoutMS is the budget of a call that does not set timeout_ms.
const DefaultTimeoutMS = 15_000

// catalogue is every argument name any mode uses. A mode references names
// from here (table.go), so one name means one thing everywhere. It is
// built on first use, like the registry, not at every start of
// gasoline-host.
var catalogue = sync.OnceValue(func() map[string]Param {
	return map[string]Param{
		// Universal and common.
		"timeout_ms":  {Type: Integer, Desc: "how long the call waits before answering still_processing with a correlation_id", Default: DefaultTimeoutMS, Min: bound(0), Max: bound(MaxTimeoutMS), Example: 5000},
		"background":  {Type: Boolean, Desc: "return a correlation_id at once; fetch the result with observe command_result", Example: true},
		"approval_id": {Type: String, Desc: "approval token from an approved approval request", Example: "ap_1"},
		"tab_id":      {Type: Integer, Desc: "a tab of the session (opened by it, or shared by the user); default: the session's current tab", Min: bound(0), Example: 7},
		"browser":     {Type: String, Desc: "the browser to open the tab in: an id, name or profile from observe tabs; default: the one the session uses, else the one the user focused last", Example: "3f2a9c1e"},
		"frame":       {Type: String, Desc: "iframe to target: frame id, name or URL substring", Example: "checkout"},

		// Targets.
		"ref":         {Type: String, Desc: "element ref from the latest snapshot of the tab", Example: "e12"},
		"selector":    {Type: String, Desc: `CSS, or text=, role=button[name="Save"], label=, placeholder=`, Example: `role=button[name="Save"]`},
		"x":           {Type: Number, Desc: "viewport x in CSS pixels (with y)", Example: 100},
		"y":           {Type: Number, Desc: "viewport y in CSS pixels (with x)", Example: 200},
		"to_ref":      {Type: String, Desc: "drop target ref", Example: "e14"},
		"to_selector": {Type: String, Desc: "drop target selector", Example: "#done"},
		"to_x":        {Type: Number, Desc: "drop point x (with to_y)", Example: 300},
		"to_y":        {Type: Number, Desc: "drop point y (with to_x)", Example: 200},

		// Interaction.
		"url":           {Type: String, Desc: "absolute URL", Example: "https://example.com/"},
		"wait_until":    {Type: String, Desc: "when navigation counts as done", Enum: []string{"load", "domcontentloaded", "network_idle"}, Default: "load", Example: "load"},
		"text":          {Type: String, Desc: "text to type, or text to find", Example: "hello"},
		"clear":         {Type: Boolean, Desc: "clear the field before typing", Example: true},
		"value":         {Type: String, Desc: "value to select or store", Example: "blue"},
		"checked":       {Type: Boolean, Desc: "desired state", Default: true, Example: true},
		"keys":          {Type: String, Desc: "key or chord, e.g. Enter, Control+A", Example: "Enter"},
		"button":        {Type: String, Desc: "mouse button", Enum: []string{"left", "right", "middle"}, Default: "left", Example: "left"},
		"modifiers":     {Type: String, Desc: "keys held, e.g. Shift or Control+Shift", Example: "Shift"},
		"click_count":   {Type: Integer, Desc: "1 click, 2 double click", Default: 1, Min: bound(1), Max: bound(3), Example: 2},
		"fields":        {Type: Array, Items: Object, Desc: "[{ref|selector, value}] filled in order", Example: []any{map[string]any{"ref": "e3", "value": "Ada"}}},
		"submit":        {Type: Boolean, Desc: "submit the form after filling", Example: true},
		"files":         {Type: Array, Items: String, Desc: "absolute paths of files to set on the input", Example: []any{"/tmp/report.pdf"}},
		"file_contents": {Type: Array, Items: Object, Desc: "[{name, type, base64}] files by content, for an agent whose files are on another machine; at most 25 MiB decoded in all", Example: []any{map[string]any{"name": "report.txt", "type": "text/plain", "base64": "aGVsbG8K"}}},
		"script":        {Type: String, Desc: "JavaScript evaluated in the page's main world", Example: "document.title"},
		"accept":        {Type: Boolean, Desc: "accept (true) or dismiss (false) the dialog", Example: true},
		"prompt_text":   {Type: String, Desc: "text for a prompt() dialog", Example: "yes"},
		"network_idle":  {Type: Boolean, Desc: "wait until no request is in flight for idle_ms", Example: true},
		"idle_ms":       {Type: Integer, Desc: "quiet period", Default: 500, Min: bound(50), Max: bound(10000), Example: 500},
		"state":         {Type: String, Desc: "element state to wait for", Enum: []string{"visible", "hidden", "attached", "detached"}, Default: "visible", Example: "visible"},
		"name":          {Type: String, Desc: "attribute, test, recording or page tool name", Example: "href"},
		"arguments":     {Type: Object, Desc: "the page tool's arguments, checked against its input schema", Example: map[string]any{"query": "shoes"}},
		"intent":        {Type: String, Desc: "what you mean to do, in a sentence or two, as the user reads it", Example: "Create a notebook, run a cell and rename it"},
		"origins":       {Type: Array, Items: String, Desc: "exact origins the plan acts on (https://*.example.com for a site's subdomains)", Example: []any{"http://127.0.0.1:8888"}},
		"actions":       {Type: Array, Items: String, Desc: "the interact modes the plan covers (not execute_js, upload)", Example: []any{"navigate", "click", "type", "key_press"}},
		"minutes":       {Type: Integer, Desc: "how long the plan lasts", Default: 30, Min: bound(1), Max: bound(480), Example: 30},
		"high":          {Type: Array, Items: Object, Desc: "[{what, risk: submit|download|named, target}] high-risk actions the plan names; each runs unasked only if the user ticks it", Example: []any{map[string]any{"what": "click", "risk": "named", "target": "delete"}}},
		"steps":         {Type: Array, Items: Object, Desc: "[{what, ...args}] interact steps run in order; stops at the first failure", Example: []any{map[string]any{"what": "click", "ref": "e5"}}},

		// Reading and paging.
		"limit":            {Type: Integer, Desc: "maximum items returned", Default: 100, Min: bound(1), Max: bound(1000), Example: 50},
		"after_cursor":     {Type: String, Desc: "continue after this cursor from a previous answer", Example: "42"},
		"summary":          {Type: Boolean, Desc: "short form", Example: true},
		"interactive_only": {Type: Boolean, Desc: "only interactive nodes", Example: true},
		"depth":            {Type: Integer, Desc: "maximum tree depth", Min: bound(1), Max: bound(100), Example: 5},
		"find":             {Type: String, Desc: `only the nodes whose name or text contains this ("…" for exact; or role=button[name="Save"]), under their parents`, Example: "Save"},
		"diff":             {Type: Boolean, Desc: "only what changed since this session's previous snapshot of the tab", Example: true},
		"full_page":        {Type: Boolean, Desc: "capture the full page, not only the viewport", Example: true},
		"format":           {Type: String, Desc: "image format", Enum: []string{"png", "jpeg"}, Default: "png", Example: "jpeg"},
		"quality":          {Type: Integer, Desc: "JPEG quality", Min: bound(1), Max: bound(100), Example: 80},
		"to_file":          {Type: Boolean, Desc: "write the output to a file under the state directory and return its path", Example: true},
		"level":            {Type: String, Desc: "minimum console level", Enum: []string{"debug", "info", "warning", "error"}, Example: "error"},
		"method":           {Type: String, Desc: "HTTP method filter", Example: "POST"},
		"status":           {Type: String, Desc: "HTTP status filter, e.g. 404 or 5xx", Example: "5xx"},
		"type":             {Type: String, Desc: "resource type filter, e.g. xhr, fetch, document", Example: "fetch"},
		"scope":            {Type: String, Desc: "page: requests of the tab's current document (since its last navigation); all: every captured request", Enum: []string{"page", "all"}, Default: "page", Example: "all"},
		"request_id":       {Type: String, Desc: "request id from network_waterfall", Example: "1234.5"},
		"body_path":        {Type: String, Desc: "gjson path selecting a subtree of a JSON body", Example: "data.items.0"},
		"origin":           {Type: String, Desc: "origin filter", Example: "https://example.com"},
		"correlation_id":   {Type: String, Desc: "correlation_id from a still_processing or background answer", Example: "c_1"},

		// Analysis and generation.
		"wcag_level":  {Type: String, Desc: "WCAG conformance level", Enum: []string{"A", "AA", "AAA"}, Default: "AA", Example: "AA"},
		"same_origin": {Type: Boolean, Desc: "check only same-origin links", Example: true},
		"baseline":    {Type: String, Desc: "baseline name (stored under the state directory on first use)", Example: "home"},
		"threshold":   {Type: Number, Desc: "fraction of pixels allowed to differ", Min: bound(0), Max: bound(1), Example: 0.01},
		"report_only": {Type: Boolean, Desc: "emit Content-Security-Policy-Report-Only", Example: true},

		// Developer tools: emulation, tracing, routes.
		"device":         {Type: String, Desc: "a device preset: iPhone 15, iPhone SE, Pixel 8, Galaxy S24, iPad Air, iPad Mini, Desktop 1080p, Laptop; none clears it", Example: "iPhone 15"},
		"viewport":       {Type: Object, Desc: "{width, height, device_scale, mobile} in CSS pixels (mobile: mobile layout and touch); {width:0, height:0} clears it", Example: map[string]any{"width": 390, "height": 844, "mobile": true}},
		"color_scheme":   {Type: String, Desc: "prefers-color-scheme: light or dark; \"\" clears it", Example: "dark"},
		"reduced_motion": {Type: Boolean, Desc: "prefers-reduced-motion: reduce", Example: true},
		"locale":         {Type: String, Desc: "BCP 47 locale for Intl and navigator.language, e.g. fr-FR; \"\" clears it", Example: "fr-FR"},
		"timezone":       {Type: String, Desc: "IANA timezone, e.g. Asia/Tokyo; \"\" clears it", Example: "Asia/Tokyo"},
		"geolocation":    {Type: Object, Desc: "{latitude, longitude, accuracy} the geolocation API reports (the page still needs the user's permission); {} clears it", Example: map[string]any{"latitude": 48.8584, "longitude": 2.2945}},
		"network":        {Type: String, Desc: "offline, slow_3g, fast_3g, fast_4g or none; or custom as latency_ms/download_kbps/upload_kbps, e.g. 300/1600/750", Example: "slow_3g"},
		"cpu_slowdown":   {Type: Number, Desc: "CPU slowdown factor: 1 none, 4 a mid-range phone, 6 a low-end one", Min: bound(1), Max: bound(20), Example: 4},
		"reset":          {Type: Boolean, Desc: "clear every condition first (alone: back to normal)", Example: true},
		"url_pattern":    {Type: String, Desc: "URL glob: * any characters, ? one, \\ escapes; e.g. */api/items*", Example: "*/api/items*"},
		"block":          {Type: Boolean, Desc: "fail matching requests (net::ERR_BLOCKED_BY_CLIENT)", Example: true},
		"status_code":    {Type: Integer, Desc: "HTTP status of the response the route answers with (default 200)", Min: bound(100), Max: bound(599), Example: 503},
		"headers":        {Type: Object, Desc: "response headers {name: value}; Content-Type is guessed from the body when missing", Example: map[string]any{"Content-Type": "application/json"}},
		"body":           {Type: String, Desc: "response body the route answers with (text; JSON as a string; at most 512 KiB)", Example: `{"items":[]}`},
		"delay_ms":       {Type: Integer, Desc: "hold matching requests this long before they go on (or are answered)", Min: bound(0), Max: bound(60000), Example: 2000},
		"duration_ms":    {Type: Integer, Desc: "record this long of what happens next instead of reloading", Min: bound(100), Max: bound(60000), Example: 5000},

		// Configuration.
		"tool":                  {Type: String, Desc: "tool to describe", Enum: []string{"observe", "interact", "analyze", "generate", "configure"}, Example: "interact"},
		"mode":                  {Type: String, Desc: "mode (what) of that tool to describe in full", Example: "navigate"},
		"buffer":                {Type: String, Desc: "buffer to clear", Enum: []string{"all", "console", "network", "websocket", "actions", "errors"}, Default: "all", Example: "network"},
		"op":                    {Type: String, Desc: "operation", Example: "status"},
		"rules":                 {Type: Object, Desc: "policy rules (allow/gate/deny by action class and origin pattern)", Example: map[string]any{"allow": []any{"http://127.0.0.1:*"}}},
		"pattern":               {Type: String, Desc: "regular expression", Example: "ResizeObserver loop"},
		"key":                   {Type: String, Desc: "note name", Example: "login-steps"},
		"events":                {Type: Array, Items: String, Desc: "agent_watch triggers: errors, network_errors, security (default all)", Example: []any{"errors", "network_errors"}},
		"rate_limit_per_min":    {Type: Integer, Desc: "agent_watch: most triggers per minute", Default: 6, Min: bound(1), Max: bound(120), Example: 6},
		"dedupe_window_seconds": {Type: Integer, Desc: "agent_watch: the same signal triggers once per window", Default: 60, Min: bound(1), Max: bound(86400), Example: 60},
	}
})
