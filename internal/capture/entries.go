package capture

import (
	"time"
	"unsafe"
)

// Kinds of captured entries. The [Redactor] receives one of these names, and
// [Stats] is keyed by them.
const (
	KindConsole    = "console"    // a ConsoleEntry
	KindException  = "exception"  // an Exception
	KindNetwork    = "network"    // a Request
	KindWebSocket  = "websocket"  // a WebSocketEvent
	KindDialog     = "dialog"     // a Dialog
	KindNavigation = "navigation" // a Navigation
	KindAction     = "action"     // an Action
)

// Every entry carries two cursors: Seq orders it within its own kind (the
// cursor of the per-kind queries) and Order orders it among all the tab's
// entries (the cursor of [Store.Timeline]).

// Frame is one JavaScript stack frame. Line and Column are 1-based, as in a
// printed stack trace (CDP sends them 0-based).
type Frame struct {
	Function string `json:"function,omitempty"`
	URL      string `json:"url,omitempty"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// ConsoleEntry is one console API call (Runtime.consoleAPICalled).
type ConsoleEntry struct {
	Seq   uint64    `json:"seq"`
	Order uint64    `json:"order"`
	Time  time.Time `json:"time"`
	// Level is error, warning, info, debug or log.
	Level string `json:"level"`
	// Type is the console method: log, error, table, assert, trace, ….
	Type string `json:"type"`
	// Text is the arguments joined by spaces, with %s/%d/%i/%f/%o/%O
	// substitution and object previews as DevTools prints them.
	Text string `json:"text"`
	// Truncated reports that Text (or another field) was cut to its limit.
	Truncated bool   `json:"truncated,omitempty"`
	URL       string `json:"url,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	// Stack is kept for error, warning, assert and trace calls only.
	Stack []Frame `json:"stack,omitempty"`
}

// Exception is one uncaught exception or unhandled rejection
// (Runtime.exceptionThrown).
type Exception struct {
	Seq   uint64    `json:"seq"`
	Order uint64    `json:"order"`
	Time  time.Time `json:"time"`
	// Message reads as DevTools prints it, e.g. "Uncaught TypeError: x is
	// not a function" or "Uncaught (in promise) Error: nope".
	Message   string  `json:"message"`
	Truncated bool    `json:"truncated,omitempty"`
	URL       string  `json:"url,omitempty"`
	Line      int     `json:"line,omitempty"`
	Column    int     `json:"column,omitempty"`
	Stack     []Frame `json:"stack,omitempty"`
}

// Request is one network request, merged from Network.requestWillBeSent,
// responseReceived, loadingFinished and loadingFailed by request id. A
// redirect ends one Request (with the 3xx status) and starts the next with the
// same ID.
type Request struct {
	Seq          uint64    `json:"seq"`
	Order        uint64    `json:"order"`
	ID           string    `json:"id"`
	Method       string    `json:"method"`
	URL          string    `json:"url"`
	ResourceType string    `json:"resource_type,omitempty"` // Document, Fetch, XHR, Script, …
	Status       int       `json:"status,omitempty"`        // 0 when no response arrived
	StatusText   string    `json:"status_text,omitempty"`
	MimeType     string    `json:"mime_type,omitempty"`
	Start        time.Time `json:"start"`
	// TTFBMs is milliseconds from the start to the first response byte.
	TTFBMs float64 `json:"ttfb_ms,omitempty"`
	// DurationMs is milliseconds from the start to the end of loading.
	DurationMs        float64 `json:"duration_ms,omitempty"`
	EncodedDataLength int64   `json:"encoded_data_length,omitempty"`
	FromCache         bool    `json:"from_cache,omitempty"`
	// Failed reports a load that did not complete (Network.loadingFailed);
	// ErrorText is Chrome's net error, e.g. net::ERR_CONNECTION_REFUSED.
	Failed        bool   `json:"failed,omitempty"`
	ErrorText     string `json:"error_text,omitempty"`
	Canceled      bool   `json:"canceled,omitempty"`
	BlockedReason string `json:"blocked_reason,omitempty"`
	CORSError     string `json:"cors_error,omitempty"`
	// InitiatorType is parser, script, preload, other, …; InitiatorURL is the
	// top script frame or parser document that started the request.
	InitiatorType string `json:"initiator_type,omitempty"`
	InitiatorURL  string `json:"initiator_url,omitempty"`
	// Pending is true only in [Store.Pending] results: the request has not
	// finished yet and its response fields may still be empty.
	Pending   bool `json:"pending,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
	// LoaderID is CDP's loaderId: the document the request belongs to (a
	// document's own request has ID == LoaderID). Some worker and service
	// worker requests have none. [Document.Has] reads it; it is left out of
	// JSON answers.
	LoaderID string `json:"-"`
	// Headers holds a document response's security headers (lowercase
	// names: see SecurityHeaders), for analyze security_audit; nil for
	// other requests. Left out of JSON answers.
	Headers map[string]string `json:"-"`

	sent    uint64 // the tab's Network.requestWillBeSent count at its start
	mainDoc bool   // the document request of a main-frame navigation
}

// WebSocketEvent is one event of a WebSocket: created, frame, error or
// closed.
type WebSocketEvent struct {
	Seq      uint64    `json:"seq"`
	Order    uint64    `json:"order"`
	Time     time.Time `json:"time"`
	SocketID string    `json:"socket_id"`
	URL      string    `json:"url,omitempty"`
	Event    string    `json:"event"`               // created, frame, error, closed
	Dir      string    `json:"direction,omitempty"` // sent or received, for frames
	Opcode   int       `json:"opcode,omitempty"`    // 1 text, 2 binary
	// Payload is the text of a text frame, or the base64 of a binary one,
	// cut to the payload limit (Truncated then reports it). PayloadLen is
	// the full payload length in bytes.
	Payload    string `json:"payload,omitempty"`
	PayloadLen int    `json:"payload_len,omitempty"`
	Binary     bool   `json:"binary,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Dialog is one JavaScript dialog (alert, confirm, prompt, beforeunload). A
// dialog is stored when it closes; until then [Store.OpenDialogs] shows it.
type Dialog struct {
	Seq           uint64    `json:"seq"`
	Order         uint64    `json:"order"`
	Time          time.Time `json:"time"` // when it opened
	Type          string    `json:"type"`
	Message       string    `json:"message"`
	URL           string    `json:"url,omitempty"`
	DefaultPrompt string    `json:"default_prompt,omitempty"`
	// Handled reports that the dialog closed; Accepted is its result (OK
	// rather than Cancel) and UserInput the text entered in a prompt.
	Handled   bool      `json:"handled"`
	Accepted  bool      `json:"accepted"`
	UserInput string    `json:"user_input,omitempty"`
	Closed    time.Time `json:"closed,omitzero"`
	Truncated bool      `json:"truncated,omitempty"`
}

// Navigation is a main-frame navigation (Page.frameNavigated) or one of its
// load milestones (Page.domContentEventFired, Page.loadEventFired).
type Navigation struct {
	Seq   uint64    `json:"seq"`
	Order uint64    `json:"order"`
	Time  time.Time `json:"time"`
	Event string    `json:"event"` // navigated, domcontentloaded, load
	URL   string    `json:"url"`
	// Type is CDP's navigation type for navigated events: Navigation or
	// BackForwardCacheRestore.
	Type string `json:"type,omitempty"`
	// SinceStartMs is, for load milestones, milliseconds since the start of
	// the main document request, when that request was seen.
	SinceStartMs float64 `json:"since_start_ms,omitempty"`
	Truncated    bool    `json:"truncated,omitempty"`
}

// Action is one trusted input the in-page recorder saw in a tab: a click,
// text typed into a field, an option selected, a box checked, a key
// pressed or files chosen. The recorder (internal/recorder) builds it from
// the page's report; [Store.AddAction] stores it.
type Action struct {
	Seq   uint64    `json:"seq"`
	Order uint64    `json:"order"`
	Time  time.Time `json:"time"`
	// Type is click, type, select, check, key_press or upload.
	Type string `json:"type"`
	// Source is user, or agent when an interact call of the tab's session
	// was running when the page saw it.
	Source string `json:"source"`
	// Selector is a selector unique in the page when recorded (CSS, or
	// role=…[name=…] for buttons and links); Target describes the element
	// as `role "name"`.
	Selector string `json:"selector,omitempty"`
	Target   string `json:"target,omitempty"`
	// Value is the text typed, the option chosen or the file names; empty
	// when Masked says why it was withheld (password or card): such values
	// never leave the page.
	Value   string `json:"value,omitempty"`
	Masked  string `json:"masked,omitempty"`
	Checked *bool  `json:"checked,omitempty"`
	Keys    string `json:"keys,omitempty"` // key_press: Enter, Control+A, …
	Button  string `json:"button,omitempty"`
	Clicks  int    `json:"click_count,omitempty"`
	// Frame is the URL of the frame it happened in, when not the top one.
	Frame string `json:"frame,omitempty"`
	// URL is the tab's page when it was stored.
	URL       string `json:"url,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// slotOverhead approximates a ring slot's bookkeeping beyond the entry.
const slotOverhead = 16

func framesSize(fs []Frame) int {
	n := len(fs) * int(unsafe.Sizeof(Frame{}))
	for _, f := range fs {
		n += len(f.Function) + len(f.URL)
	}
	return n
}

// Size returns the approximate bytes the entry retains.
func (e ConsoleEntry) Size() int {
	return int(unsafe.Sizeof(e)) + slotOverhead + len(e.Level) + len(e.Type) + len(e.Text) + len(e.URL) + framesSize(e.Stack)
}

// WithSeq returns e carrying seq.
func (e ConsoleEntry) WithSeq(seq uint64) ConsoleEntry { e.Seq = seq; return e }

func (e ConsoleEntry) withOrder(o uint64) ConsoleEntry { e.Order = o; return e }

func (e ConsoleEntry) orderOf() uint64 { return e.Order }

// Size returns the approximate bytes the entry retains.
func (e Exception) Size() int {
	return int(unsafe.Sizeof(e)) + slotOverhead + len(e.Message) + len(e.URL) + framesSize(e.Stack)
}

// WithSeq returns e carrying seq.
func (e Exception) WithSeq(seq uint64) Exception { e.Seq = seq; return e }

func (e Exception) withOrder(o uint64) Exception { e.Order = o; return e }

func (e Exception) orderOf() uint64 { return e.Order }

// Size returns the approximate bytes the entry retains.
func (e Request) Size() int {
	return int(unsafe.Sizeof(e)) + slotOverhead + len(e.ID) + len(e.Method) + len(e.URL) + len(e.ResourceType) +
		len(e.StatusText) + len(e.MimeType) + len(e.ErrorText) + len(e.BlockedReason) + len(e.CORSError) +
		len(e.InitiatorType) + len(e.InitiatorURL) + len(e.LoaderID) + headersSize(e.Headers)
}

func headersSize(h map[string]string) int {
	n := 0
	for k, v := range h {
		n += len(k) + len(v) + 2*int(unsafe.Sizeof(""))
	}
	return n
}

// WithSeq returns e carrying seq.
func (e Request) WithSeq(seq uint64) Request { e.Seq = seq; return e }

func (e Request) withOrder(o uint64) Request { e.Order = o; return e }

func (e Request) orderOf() uint64 { return e.Order }

// Size returns the approximate bytes the entry retains.
func (e WebSocketEvent) Size() int {
	return int(unsafe.Sizeof(e)) + slotOverhead + len(e.SocketID) + len(e.URL) + len(e.Event) + len(e.Dir) +
		len(e.Payload) + len(e.Error)
}

// WithSeq returns e carrying seq.
func (e WebSocketEvent) WithSeq(seq uint64) WebSocketEvent { e.Seq = seq; return e }

func (e WebSocketEvent) withOrder(o uint64) WebSocketEvent { e.Order = o; return e }

func (e WebSocketEvent) orderOf() uint64 { return e.Order }

// Size returns the approximate bytes the entry retains.
func (e Dialog) Size() int {
	return int(unsafe.Sizeof(e)) + slotOverhead + len(e.Type) + len(e.Message) + len(e.URL) + len(e.DefaultPrompt) +
		len(e.UserInput)
}

// WithSeq returns e carrying seq.
func (e Dialog) WithSeq(seq uint64) Dialog { e.Seq = seq; return e }

func (e Dialog) withOrder(o uint64) Dialog { e.Order = o; return e }

func (e Dialog) orderOf() uint64 { return e.Order }

// Size returns the approximate bytes the entry retains.
func (e Navigation) Size() int {
	return int(unsafe.Sizeof(e)) + slotOverhead + len(e.Event) + len(e.URL) + len(e.Type)
}

// WithSeq returns e carrying seq.
func (e Navigation) WithSeq(seq uint64) Navigation { e.Seq = seq; return e }

func (e Navigation) withOrder(o uint64) Navigation { e.Order = o; return e }

func (e Navigation) orderOf() uint64 { return e.Order }

// Size returns the approximate bytes the entry retains.
func (e Action) Size() int {
	return int(unsafe.Sizeof(e)) + slotOverhead + len(e.Type) + len(e.Source) + len(e.Selector) + len(e.Target) +
		len(e.Value) + len(e.Masked) + len(e.Keys) + len(e.Button) + len(e.Frame) + len(e.URL)
}

// WithSeq returns e carrying seq.
func (e Action) WithSeq(seq uint64) Action { e.Seq = seq; return e }

func (e Action) withOrder(o uint64) Action { e.Order = o; return e }

func (e Action) orderOf() uint64 { return e.Order }

// MainDocument reports the document request of a main-frame navigation.
func (e Request) MainDocument() bool { return e.mainDoc }

// entry is what a tab's rings hold: a Sized value that also takes the tab-wide
// order.
type entry[T any] interface {
	Sized[T]
	withOrder(o uint64) T
	orderOf() uint64
}
