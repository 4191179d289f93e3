// Package export is the redacted session export (issue 7): a session's
// timeline, evidence, tool calls and approval decisions with the metadata
// to replay what it did — the start URL, the viewport and its actions
// with element targets resolved to stable selectors — and the artifacts
// generated from it: a Playwright reproduction script, a Playwright test
// and a HAR 1.2 file. The package builds documents; the daemon passes
// every byte through the egress redactor before it leaves.
package export

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Action is one recorded interact call, in a form a replay can use.
type Action struct {
	Seq   int       `json:"seq"`
	At    time.Time `json:"at"`
	Mode  string    `json:"mode"` // navigate, click, type, …
	TabID int       `json:"tab_id,omitempty"`
	// Selector is the stable selector the replay uses: the call's own
	// selector, or one derived from the element a ref named (role and
	// accessible name).
	Selector string `json:"selector,omitempty"`
	// Ref is the snapshot ref the call used, if any (not replayable by
	// itself: refs live as long as their snapshot).
	Ref    string `json:"ref,omitempty"`
	Target string `json:"target,omitempty"` // what was acted on, as the action described it
	URL    string `json:"url,omitempty"`    // navigate, new_tab
	Text   string `json:"text,omitempty"`   // type (redacted)
	Clear  bool   `json:"clear,omitempty"`
	Value  string `json:"value,omitempty"` // select
	// Checked is check's desired state.
	Checked *bool   `json:"checked,omitempty"`
	Keys    string  `json:"keys,omitempty"`
	Button  string  `json:"button,omitempty"`
	Clicks  int     `json:"click_count,omitempty"`
	Fields  []Field `json:"fields,omitempty"` // fill_form
	Accept  *bool   `json:"accept,omitempty"` // handle_dialog
	Prompt  string  `json:"prompt_text,omitempty"`
	OK      bool    `json:"ok"`
	// PageURL is the page's URL after the action, when it reported one.
	PageURL string `json:"page_url,omitempty"`
	// Source is "user" for what the user did by hand during a recording
	// (configure recording_start), "recording" for a recording's start
	// marker; empty for the agent's interact calls.
	Source string `json:"source,omitempty"`
}

// Field is one fill_form field.
type Field struct {
	Selector string `json:"selector,omitempty"`
	Ref      string `json:"ref,omitempty"`
	Target   string `json:"target,omitempty"`
	Value    string `json:"value"`
}

// ToolCall is one recorded tool call: what, when, how it ended. Never its
// result.
type ToolCall struct {
	At         time.Time `json:"at"`
	Tool       string    `json:"tool"`
	Mode       string    `json:"mode"`
	OK         bool      `json:"ok"`
	DurationMS int64     `json:"duration_ms"`
	Error      string    `json:"error,omitempty"` // the error code
}

// Decision is one approval event of the session.
type Decision struct {
	At        time.Time `json:"at"`
	Type      string    `json:"type"` // requested, approved, denied, …
	Action    string    `json:"action"`
	RequestID string    `json:"request_id,omitempty"`
	Decision  string    `json:"decision,omitempty"`
	Reason    string    `json:"reason,omitempty"`
}

// Recorder keeps, per session, the actions, tool calls and decisions an
// export needs. Bounded; safe for concurrent use.
type Recorder struct {
	mu       sync.Mutex
	sessions map[string]*record
	order    []string // sessions, least recently recorded first
	// ended are sessions forgotten lately (Forget), oldest first: an
	// approval event of theirs that arrives after they ended (their
	// pending requests expire as they end) records nothing.
	ended []string
}

type record struct {
	actions   ring[Action]
	calls     ring[ToolCall]
	decisions ring[Decision]
	seq       int
}

// Limits of the recorder.
const (
	MaxSessions  = 64
	MaxActions   = 2000
	MaxCalls     = 2000
	MaxDecisions = 1000
)

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{sessions: map[string]*record{}} }

func (r *Recorder) session(id string) *record {
	rec := r.sessions[id]
	if rec == nil && slices.Contains(r.ended, id) {
		return &record{} // written to and dropped
	}
	if rec == nil {
		if len(r.order) >= MaxSessions {
			delete(r.sessions, r.order[0])
			r.order = r.order[1:]
		}
		rec = &record{}
		r.sessions[id] = rec
	} else {
		r.order = slices.DeleteFunc(r.order, func(s string) bool { return s == id })
	}
	r.order = append(r.order, id)
	return rec
}

// Action records an interact call's action.
func (r *Recorder) Action(session string, a Action) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.session(session)
	rec.seq++
	a.Seq = rec.seq
	rec.actions.add(a, MaxActions)
}

// Last returns the seq of the session's newest action (0 when none): the
// after_cursor of a reproduction of what comes next.
func (r *Recorder) Last(session string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rec := r.sessions[session]; rec != nil {
		return rec.seq
	}
	return 0
}

// Call records a tool call.
func (r *Recorder) Call(session string, c ToolCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.session(session)
	rec.calls.add(c, MaxCalls)
}

// Decision records an approval event.
func (r *Recorder) Decision(session string, d Decision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.session(session)
	rec.decisions.add(d, MaxDecisions)
}

// Snapshot returns copies of a session's records.
func (r *Recorder) Snapshot(session string) (actions []Action, calls []ToolCall, decisions []Decision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.sessions[session]
	if rec == nil {
		return nil, nil, nil
	}
	return rec.actions.values(), rec.calls.values(), rec.decisions.values()
}

// ActionOf builds the Action of an interact call of mode from its typed
// arguments (tools.Args, as the dispatcher decoded them) and its result
// (actions.Result JSON: target, tab_id, changes.url).
func ActionOf(mode string, args *tools.Args, result json.RawMessage, ok bool, at time.Time) Action {
	a := Action{Mode: mode, At: at.UTC(), OK: ok, Ref: args.Ref, URL: args.URL, Text: args.Text, Keys: args.Keys,
		Button: args.Button, Prompt: args.PromptText, Clear: args.Clear, Value: args.Value, Accept: args.Accept,
		Checked: args.Checked, Clicks: args.ClickCount}
	if a.Checked == nil && mode == "check" {
		a.Checked = ptr(true)
	}
	var res struct {
		TabID   int    `json:"tab_id"`
		Target  string `json:"target"`
		Changes struct {
			URL *struct{ To string } `json:"url"`
		} `json:"changes"`
		Steps []struct {
			Target string `json:"target"`
		} `json:"steps"`
		Tab struct {
			ID  int    `json:"id"`
			URL string `json:"url"`
		} `json:"tab"`
		URL string `json:"url"`
	}
	json.Unmarshal(result, &res)
	a.TabID, a.Target = res.TabID, res.Target
	if a.TabID == 0 {
		a.TabID = res.Tab.ID
	}
	if res.Changes.URL != nil {
		a.PageURL = res.Changes.URL.To
	}
	a.Selector = StableSelector(args.Selector, a.Target)
	if secretField(args.Selector + " " + a.Target) {
		a.Text = "[REDACTED:password]" // typed into a password-like field: never exported
	}
	for i, f := range args.Fields {
		fd := Field{Selector: f.Selector, Ref: f.Ref}
		switch v := f.Value.(type) {
		case string:
			fd.Value = v
		case nil:
		default:
			raw, _ := json.Marshal(v)
			fd.Value = string(raw)
		}
		if i < len(res.Steps) {
			fd.Target = res.Steps[i].Target
		}
		if secretField(fd.Selector + " " + fd.Target) {
			fd.Value = "[REDACTED:password]"
		}
		fd.Selector = StableSelector(fd.Selector, fd.Target)
		a.Fields = append(a.Fields, fd)
	}
	return a
}

func ptr[T any](v T) *T { return &v }

// secretField reports a target that names a password-like field; what is
// typed into it is never recorded.
func secretField(s string) bool {
	s = strings.ToLower(s)
	for _, w := range []string{"password", "passwd", "passcode", "secret", "pin code", "cvv", "cvc", "otp", "one-time"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// StableSelector is the selector a replay uses: the call's own selector
// when it had one, else the element's ARIA role and accessible name from
// the action's description (`button "Save"` → role=button[name="Save"s],
// Playwright's exact match; a name the description clipped matches as a
// prefix substring). A description that names no role (a tag and an id
// or class) gives "": the action is kept in the export but not replayed.
func StableSelector(selector, target string) string {
	if selector != "" {
		return selector
	}
	role, name, ok := parseTarget(target)
	if !ok || !ariaRoles()[role] {
		return ""
	}
	if name == "" {
		return "role=" + role
	}
	flag := "s"
	if n, clipped := strings.CutSuffix(name, "…"); clipped {
		name, flag = n, "i"
	}
	return "role=" + role + `[name="` + strings.ReplaceAll(strings.ReplaceAll(name, `\`, `\\`), `"`, `\"`) + `"` + flag + "]"
}

// ariaRoles are the roles a Playwright role locator takes, built on first
// use.
var ariaRoles = sync.OnceValue(func() map[string]bool {
	roles := map[string]bool{}
	for _, r := range strings.Fields(`alert alertdialog application article banner blockquote button caption cell checkbox
		code columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed
		figure form generic grid gridcell group heading img insertion link list listbox listitem log main marquee math
		menu menubar menuitem menuitemcheckbox menuitemradio meter navigation note option paragraph progressbar radio
		radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong
		subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem`) {
		roles[r] = true
	}
	return roles
})

// parseTarget reads `role "name"` (the actions engine's element
// description); a trailing " in frame …" is dropped.
func parseTarget(t string) (role, name string, ok bool) {
	t = strings.TrimSpace(t)
	role, rest, _ := strings.Cut(t, " ")
	if role == "" || !isWord(role) {
		return "", "", false
	}
	if rest == "" {
		return role, "", true
	}
	if !strings.HasPrefix(rest, `"`) {
		return "", "", false
	}
	var s string
	dec := json.NewDecoder(strings.NewReader(rest))
	if err := dec.Decode(&s); err != nil {
		return "", "", false
	}
	return role, s, true
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// Forget drops a session's records: it ended, and no one can export it
// any more. What arrives for it afterwards is not recorded.
func (r *Recorder) Forget(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.sessions[session]; ok {
		delete(r.sessions, session)
		r.order = slices.DeleteFunc(r.order, func(s string) bool { return s == session })
	}
	if !slices.Contains(r.ended, session) {
		if len(r.ended) == maxEnded {
			r.ended = slices.Delete(r.ended, 0, 1)
		}
		r.ended = append(r.ended, session)
	}
}

// maxEnded bounds the ended sessions remembered.
const maxEnded = 256

// Sizes reports what the recorder keeps against its bounds (the daemon's
// memory report).
func (r *Recorder) Sizes() []memory.Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	var actions, calls, decisions int
	for _, rec := range r.sessions {
		actions += rec.actions.len()
		calls += rec.calls.len()
		decisions += rec.decisions.len()
	}
	return []memory.Store{
		{Name: "export.sessions", Len: len(r.sessions), Cap: MaxSessions},
		{Name: "export.ended_sessions", Len: len(r.ended), Cap: maxEnded},
		{Name: "export.actions", Len: actions, Cap: MaxActions * MaxSessions},
		{Name: "export.calls", Len: calls, Cap: MaxCalls * MaxSessions},
		{Name: "export.decisions", Len: decisions, Cap: MaxDecisions * MaxSessions},
	}
}
