package pagetools

import (
	"encoding/json"
	"errors"
)

// What a tab's page has registered and the calls in flight, kept from the
// WebMCP domain's events. All of it is guarded by Manager.mu: Event runs on
// the extension link's read goroutine and only touches maps and buffered
// channels, never blocking.

// enableState is whether the WebMCP domain is on in the tab's attachment.
type enableState int

const (
	notEnabled  enableState = iota // not yet, or the debugger detached since
	enabled                        // WebMCP.enable answered
	unavailable                    // WebMCP.enable failed (an older Chrome has no such domain)
)

type toolKey struct{ frame, name string }

// tabState is one tab: its tools by frame and name, its calls in flight,
// and answers that arrived before their call knew its invocation id.
type tabState struct {
	// gen changes whenever the tab's tools may have: a tool added or
	// removed, a frame navigated, the attachment reset. A call planned at
	// the same gen runs the tool it was planned with.
	gen    uint64
	state  enableState
	detail string // why WebMCP.enable failed
	tools  map[toolKey]*Tool
	calls  []*invocation
	early  map[string]responded
}

func newTabState() *tabState {
	return &tabState{tools: map[toolKey]*Tool{}, early: map[string]responded{}}
}

// close ends every call in flight with why and forgets the tools: the
// attachment they came from is gone.
func (t *tabState) close(why outcome) {
	for _, c := range t.calls {
		c.finish(why)
	}
	t.calls = nil
	clear(t.tools)
	clear(t.early)
	t.state = notEnabled
}

// maxTools bounds the tools kept per tab: a page that registers more
// has the rest ignored (a listing reads at most 100 a frame besides).
const maxTools = 512

// maxName bounds a tool's name as kept.
const maxName = 256

// maxEarly bounds the answers kept for calls that have not bound their
// invocation id yet (only ours are ever waited for).
const maxEarly = 16

// outcomeKind says how a call ended.
type outcomeKind int

const (
	answered  outcomeKind = iota // toolResponded
	removed                      // the page unregistered the tool meanwhile
	navigated                    // its frame navigated or went away
	detached                     // the debugger left the tab
)

type outcome struct {
	kind outcomeKind
	resp responded
	url  string // navigated: where the frame went, when known
}

// invocation is one call in flight: the tool it names, its invocation id
// once Chrome said it, and where its outcome goes.
type invocation struct {
	frame, name string
	id          string
	done        chan outcome // buffered: the first outcome wins
}

func (c *invocation) finish(o outcome) {
	select {
	case c.done <- o:
	default:
	}
}

// Event updates the tab's state from one extension event (bridge routes
// every event here). It never blocks.
func (m *Manager) Event(method string, tab int, session, cdpMethod string, params json.RawMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tabs[tab]
	if t == nil {
		return
	}
	switch method {
	case "cdp.attached", "cdp.detached":
		t.close(outcome{kind: detached})
		t.gen = m.next()
		return
	case "cdp.event":
	default:
		return
	}
	if session != "" { // an out-of-process frame: another site's tools
		return
	}
	if t.event(cdpMethod, params) {
		t.gen = m.next()
	}
}

// event applies one CDP event; it reports whether the tools may have
// changed.
func (t *tabState) event(method string, params json.RawMessage) bool {
	switch method {
	case evToolsAdded:
		var ev toolsAdded
		if json.Unmarshal(params, &ev) == nil {
			for _, w := range ev.Tools {
				k := toolKey{w.FrameID, w.Name}
				if _, ok := t.tools[k]; ok || len(t.tools) < maxTools {
					t.tools[k] = fromWire(w)
				}
			}
		}
	case evToolsRemoved:
		var ev toolsRemoved
		if json.Unmarshal(params, &ev) == nil {
			for _, r := range ev.Tools {
				delete(t.tools, toolKey{r.FrameID, r.Name})
				t.end(func(c *invocation) bool { return c.frame == r.FrameID && c.name == r.Name }, outcome{kind: removed})
			}
		}
	case evToolInvoked:
		var ev toolInvoked
		if json.Unmarshal(params, &ev) == nil {
			t.bind(ev)
		}
	case evToolResponded:
		var ev responded
		if json.Unmarshal(params, &ev) == nil {
			t.respond(ev)
		}
	case evFrameNav:
		var ev frameNavigated
		if json.Unmarshal(params, &ev) == nil {
			t.frameGone(ev.Frame.ID, ev.Frame.ParentID == "", outcome{kind: navigated, url: ev.Frame.URL})
		}
	case evFrameDetached:
		var ev frameDetached
		if json.Unmarshal(params, &ev) == nil && ev.Reason != "swap" { // a swap continues in another process
			t.frameGone(ev.FrameID, false, outcome{kind: navigated})
		}
	default:
		return false
	}
	return method != evToolInvoked && method != evToolResponded
}

// bind gives the oldest call of the tool that has no invocation id yet
// the one Chrome assigned, and hands it an answer that came first.
func (t *tabState) bind(ev toolInvoked) {
	for _, c := range t.calls {
		if c.id == "" && c.frame == ev.FrameID && c.name == ev.ToolName {
			c.id = ev.InvocationID
			if r, ok := t.early[c.id]; ok {
				delete(t.early, c.id)
				t.end(func(x *invocation) bool { return x == c }, outcome{kind: answered, resp: r})
			}
			return
		}
	}
}

// bindID is bind from invokeTool's own answer (Chrome answers it before or
// after toolInvoked).
func (t *tabState) bindID(c *invocation, id string) {
	if c.id == "" {
		c.id = id
	}
	if r, ok := t.early[id]; ok {
		delete(t.early, id)
		t.end(func(x *invocation) bool { return x == c }, outcome{kind: answered, resp: r})
	}
}

func (t *tabState) respond(ev responded) {
	for _, c := range t.calls {
		if c.id == ev.InvocationID {
			t.end(func(x *invocation) bool { return x == c }, outcome{kind: answered, resp: ev})
			return
		}
	}
	if len(t.early) >= maxEarly {
		clear(t.early)
	}
	t.early[ev.InvocationID] = ev
}

// frameGone forgets a frame's tools (all of them when the main frame
// navigated) and ends its calls with o.
func (t *tabState) frameGone(frame string, main bool, o outcome) {
	for k := range t.tools {
		if main || k.frame == frame {
			delete(t.tools, k)
		}
	}
	t.end(func(c *invocation) bool { return main || c.frame == frame }, o)
}

// end finishes and drops the calls that match.
func (t *tabState) end(match func(*invocation) bool, o outcome) {
	kept := t.calls[:0]
	for _, c := range t.calls {
		if match(c) {
			c.finish(o)
			continue
		}
		kept = append(kept, c)
	}
	clear(t.calls[len(kept):])
	t.calls = kept
}

// errNotEnabled: the tab's state is gone (it left its session) or was
// never made.
var errNotEnabled = errors.New("pagetools: WebMCP is not enabled in this tab yet")
