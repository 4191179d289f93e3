// Package tools is Gasoline's MCP tool surface as data: the five tools
// (observe, interact, analyze, generate, configure), every mode of each with
// its classification (read-only, mutating, sensitive), a short summary and
// its arguments, plus validation of a call against that table, the compact
// input schemas for tools/list, the MCP annotations derived from the
// classification, and the structured errors agents receive.
//
// The package knows nothing about transports or the MCP SDK; the dispatcher
// in internal/mcpserver uses it.
package tools

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Class is a mode's safety classification (SAFETY.md, "Classification").
type Class string

// The classes. A mode whose class is not one of these is refused.
const (
	ReadOnly  Class = "read_only"
	Mutating  Class = "mutating"
	Sensitive Class = "sensitive"
)

// Gated reports whether calls of this class need the user's approval by
// default.
func (c Class) Gated() bool { return c == Mutating || c == Sensitive }

func (c Class) valid() bool { return c == ReadOnly || c == Mutating || c == Sensitive }

// Tool is one MCP tool.
type Tool struct {
	Name  string
	Title string
	// Summary is the first sentence of the tool's description.
	Summary string
	// OpenWorld says the tool reaches pages on the web (MCP openWorldHint).
	OpenWorld bool
	// Common lists the arguments every mode of the tool accepts (besides
	// what, action, timeout_ms and background).
	Common []string
	Modes  []*Mode
}

// Mode is one `what` of a tool: its one definition (table.go). The tool
// table, the input schemas, describe_capabilities, the dispatcher (which
// wraps each call in recording, redaction and fencing as the definition
// says), the approval gate, the session recorder and the exporter all read
// it, so a mode is added in one place.
type Mode struct {
	Tool    string
	Name    string
	Class   Class
	Tier    int    // 1: the product; 2: follows once tier 1 is solid
	Summary string // one line, for describe_capabilities
	// Args lists the mode's own arguments in order (see parseArgs for the
	// notation): required ones end in "!", alternatives of which one is
	// required are joined by "|", and a per-mode enum is "name:a,b,c".
	// A call's arguments are decoded once into Args (args.go).
	Args []Arg
	// OneOf lists groups of arguments of which at least one must be given.
	OneOf [][]string
	// Text says whether the mode's answers can carry page text (then the
	// dispatcher fences and scans them).
	Text Text
	// Words is what an approval prompt says the mode does, the same for
	// every call of it ("Click on the page"); set for every gated mode and
	// only for those. The prompt's specifics come from the call
	// (internal/gate).
	Words string
	// ReadOp is the op of a gated mode that only reads (policy get): such a
	// call needs no approval (Call.ReadsOnly).
	ReadOp string
	// Replay says whether an interact mode is recorded in the session
	// export and how a generated Playwright script replays it.
	Replay Replay
	// Step says the mode may run as a step of a batch (the actions
	// engine's modes).
	Step bool
	// Steps says the mode runs steps (interact batch): its class is the
	// highest of its steps', and each is recorded as its own action.
	Steps bool
	// Tab says how an interact mode uses the session's tabs.
	Tab TabUse
	// Shows names the argument an approval prompt shows whole, which must
	// therefore fit one (execute_js: its script).
	Shows string
	// DrivesPage says calls act in the tab (every interact mode but plan): what the
	// tab reports during one is the agent's doing, not the user's.
	DrivesPage bool
	// OnPage says the mode reads or acts on the page the session's tab
	// shows (a remote agent's scope may limit the pages it reaches).
	OnPage bool
	// Paths names the argument that lists files of the user's machine
	// (upload's files): a remote agent's scope decides whether it may.
	Paths string
	// PageTool says the call runs a tool the page registered (WebMCP): the
	// page's tool, not the table, says whether it only reads and what the
	// prompt shows (internal/gate/pagetool.go, internal/pagetools).
	PageTool bool
	// Plan says the call proposes a plan the user approves once, after
	// which the calls it lists run unasked (interact plan;
	// internal/gate/planmode.go checks it and words its prompt).
	Plan bool
	// Why says why a sensitive mode is (the prompt's risk line: "runs its
	// own script in the page"); set for every sensitive mode and only
	// for those.
	Why string
}

// Text says whether a mode's answers can carry text that came from a web
// page (SAFETY.md, "Page content is untrusted"): page text, titles, URLs,
// element names, console messages, bodies, dialog messages, recorded
// inputs. Every mode says one or the other; the table does not build
// otherwise, so a new mode cannot forget.
type Text int

const (
	textUnset Text = iota
	// PageText answers are fenced as untrusted data and scanned for
	// instruction-like passages (internal/untrusted).
	PageText
	// OwnText answers carry only Gasoline's own words, ids or an image (an
	// image cannot be fenced: docs/UNTRUSTED.md).
	OwnText
)

// Replay is how a recorded interact call is replayed by a generated
// Playwright script (internal/export). Every interact mode says one; the
// table does not build otherwise.
type Replay string

const (
	replayUnset Replay = ""
	// NotRecorded: the call is not in the session export (it reads, or
	// waits, or manages tabs in ways a replay does not need).
	NotRecorded Replay = "not_recorded"
	// The replayed forms: page.goto(url), reload, goBack, goForward, and
	// a locator's click, fill/pressSequentially, selectOption,
	// setChecked, hover, focus, scrollIntoViewIfNeeded, press; fill_form
	// fills each field.
	ReplayGoto    Replay = "goto"
	ReplayReload  Replay = "reload"
	ReplayBack    Replay = "back"
	ReplayForward Replay = "forward"
	ReplayClick   Replay = "click"
	ReplayType    Replay = "type"
	ReplaySelect  Replay = "select"
	ReplayCheck   Replay = "check"
	ReplayHover   Replay = "hover"
	ReplayFocus   Replay = "focus"
	ReplayScroll  Replay = "scroll"
	ReplayPress   Replay = "press"
	ReplayFill    Replay = "fill"
	// ReplayComment: recorded and kept in the export; a generated script
	// names it in a comment and does not replay it (a dialog answer, a
	// drag, an upload, a script).
	ReplayComment Replay = "comment"
	// ReplaySteps: each step is recorded as its own action (batch).
	ReplaySteps Replay = "steps"
)

// Recorded reports whether calls of the mode go into the session export.
func (r Replay) Recorded() bool { return r != replayUnset && r != NotRecorded }

// OnElement reports a replayed form that acts on one element: without a
// stable selector it is not replayed.
func (r Replay) OnElement() bool {
	switch r {
	case ReplayClick, ReplayType, ReplaySelect, ReplayCheck, ReplayHover, ReplayFocus, ReplayScroll:
		return true
	}
	return false
}

// TabUse is how an interact mode uses the session's tabs (what the gate
// checks before asking).
type TabUse int

const (
	// TabCurrent: it acts on the session's tab (tab_id or the current
	// one), which must be the session's and show a page agents may use.
	TabCurrent TabUse = iota
	// TabOpens: it goes to url in the session's tab, and opens one when
	// the session has none (navigate).
	TabOpens
	// TabNew: it opens a new tab, on url when given (new_tab).
	TabNew
	// TabAny: it may act on a session's tab whatever page it shows,
	// because it never reads or drives the page (close_tab).
	TabAny
	// TabNone: a mode of a tool that acts in tabs that acts on none
	// (interact plan: it is the session's); it does not drive a page.
	TabNone
)

// Destination reports a mode whose url argument is where a tab goes: the
// gate refuses pages no agent may open before anything is asked.
func (u TabUse) Destination() bool { return u == TabOpens || u == TabNew }

// Key returns "tool.mode", the name used in logs, approvals and policy.
func (m *Mode) Key() string { return m.Tool + "." + m.Name }

// Arg is one argument a mode takes.
type Arg struct {
	Param
	Required bool
}

// registry is built from the table on first use, not at package init:
// gasoline-host's modes that never serve MCP (the native host, the
// installers) never build it. A bad table panics on first use; the
// package's tests build it.
var registry = sync.OnceValue(func() index { return mustBuild(table) })

// All returns the tools in tools/list order.
func All() []*Tool { return registry().tools }

// Get returns the named tool.
func Get(name string) (*Tool, bool) {
	for _, t := range registry().tools {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// Lookup returns a tool's mode.
func Lookup(tool, what string) (*Mode, bool) {
	m, ok := registry().modes[tool+"."+what]
	return m, ok
}

// Mode returns the tool's mode named what, or nil.
func (t *Tool) Mode(what string) *Mode {
	for _, m := range t.Modes {
		if m.Name == what {
			return m
		}
	}
	return nil
}

// ModeNames returns the tool's mode names in table order.
func (t *Tool) ModeNames() []string {
	names := make([]string, len(t.Modes))
	for i, m := range t.Modes {
		names[i] = m.Name
	}
	return names
}

// Classify returns the class of tool.what. A mode missing from the table, or
// one whose class is not a known one, is an error: the caller must refuse
// the call (fail closed).
func Classify(tool, what string) (Class, error) { return registry().classify(tool, what) }

func (idx index) classify(tool, what string) (Class, error) {
	m, ok := idx.modes[tool+"."+what]
	if !ok {
		return "", fmt.Errorf("tools: %s.%s is not in the classification table", tool, what)
	}
	if !m.Class.valid() {
		return "", fmt.Errorf("tools: %s.%s has no valid classification (%q)", tool, what, m.Class)
	}
	return m.Class, nil
}

type index struct {
	tools []*Tool
	modes map[string]*Mode
}

// mustBuild turns the declarative table into tools and modes, panicking on
// a malformed table (a programming error caught by every test run).
func mustBuild(specs []toolSpec) index {
	idx := index{modes: map[string]*Mode{}}
	for _, ts := range specs {
		t := &Tool{Name: ts.name, Title: ts.title, Summary: ts.summary, OpenWorld: ts.openWorld, Common: strings.Fields(ts.common)}
		for _, ms := range ts.modes {
			m := ms.mode(ts)
			var err error
			if m.Args, m.OneOf, err = parseArgs(ms.args); err != nil {
				panic(fmt.Sprintf("tools: %s.%s: %v", t.Name, m.Name, err))
			}
			if err := m.check(); err != nil {
				panic(fmt.Sprintf("tools: %s.%s: %v", t.Name, m.Name, err))
			}
			if _, dup := idx.modes[m.Key()]; dup {
				panic("tools: duplicate mode " + m.Key())
			}
			idx.modes[m.Key()] = m
			t.Modes = append(t.Modes, m)
		}
		idx.tools = append(idx.tools, t)
	}
	return idx
}

// parseArgs reads the compact argument notation of the table:
//
//	"url! wait_until ref|selector|x y op:get,set"
//
// "name!" is required; "a|b|c" are alternatives of which one is required
// (each also accepted alone); "name:v1,v2" narrows the catalogue entry to
// an enum for this mode.
func parseArgs(spec string) ([]Arg, [][]string, error) {
	var args []Arg
	var oneOf [][]string
	seen := map[string]bool{}
	add := func(name string, required bool, enum []string) error {
		p, ok := catalogue()[name]
		if !ok {
			return fmt.Errorf("argument %q is not in the catalogue", name)
		}
		if seen[name] {
			return fmt.Errorf("argument %q listed twice", name)
		}
		seen[name] = true
		p.Name = name
		if enum != nil {
			p.Enum = enum
		}
		args = append(args, Arg{Param: p, Required: required})
		return nil
	}
	for _, tok := range strings.Fields(spec) {
		switch {
		case strings.Contains(tok, "|"):
			group := strings.Split(tok, "|")
			for _, name := range group {
				if err := add(name, false, nil); err != nil {
					return nil, nil, err
				}
			}
			oneOf = append(oneOf, group)
		case strings.Contains(tok, ":"):
			name, values, _ := strings.Cut(tok, ":")
			required := strings.HasSuffix(name, "!")
			if err := add(strings.TrimSuffix(name, "!"), required, strings.Split(values, ",")); err != nil {
				return nil, nil, err
			}
		default:
			required := strings.HasSuffix(tok, "!")
			if err := add(strings.TrimSuffix(tok, "!"), required, nil); err != nil {
				return nil, nil, err
			}
		}
	}
	return args, oneOf, nil
}

// Arg returns the mode's argument called name, looking at the mode's own
// arguments, then the tool's common ones, then the universal ones.
func (m *Mode) Arg(name string) (Arg, bool) {
	for _, a := range m.Args {
		if a.Name == name {
			return a, true
		}
	}
	t, _ := Get(m.Tool)
	if slices.Contains(t.Common, name) || slices.Contains(universal, name) || (name == "approval_id" && m.Class.Gated()) {
		p := catalogue()[name]
		p.Name = name
		return Arg{Param: p}, true
	}
	return Arg{}, false
}

// AllArgs returns every argument the mode accepts: its own, the tool's
// common ones, approval_id when gated, and the universal ones.
func (m *Mode) AllArgs() []Arg {
	args := slices.Clone(m.Args)
	t, _ := Get(m.Tool)
	names := slices.Clone(t.Common)
	if m.Class.Gated() {
		names = append(names, "approval_id")
	}
	names = append(names, universal...)
	for _, n := range names {
		if a, ok := m.Arg(n); ok && !slices.ContainsFunc(args, func(x Arg) bool { return x.Name == n }) {
			args = append(args, a)
		}
	}
	return args
}

// universal arguments are accepted by every mode of every tool.
var universal = []string{"timeout_ms", "background"}
