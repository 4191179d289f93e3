// Package recorder records what happens in a captured tab — clicks, text
// typed, options chosen, boxes checked, keys pressed, files chosen — by the
// user's hand or the agent's, and serves observe actions and configure
// recording_start / recording_stop.
//
// An in-page recorder (recorder.js) is installed through CDP in an isolated
// world of every frame (Install, with capture's Enable): the page's scripts
// cannot see it, and it reports through a binding exposed to that world
// only, under a name that changes with every install. It records trusted
// input only, and never the values of password or payment-card fields.
// Its reports arrive as Runtime.bindingCalled events (Event), become
// capture.Action entries (server-stage redacted like every entry), and —
// while the tab's session records — export actions, so generate
// reproduction and test replay what the user did.
package recorder

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
)

//go:embed recorder.js
var script string

// placeholder is the binding's name in recorder.js, replaced per install;
// maskPlaceholder the sensitive selectors (base64 JSON).
const (
	placeholder     = "__GASOLINE_BINDING__"
	maskPlaceholder = "__GASOLINE_MASK__"
)

// source is the recorder for binding name, with the sensitive selectors in
// force. When the redaction policy is not usable it masks every value (the
// selector "*"): nothing typed is recorded in the clear.
func (r *Recorder) source(name string) string {
	mask, err := sensitive.Of(r.cfg.Secrets)
	if err != nil {
		r.cfg.Logger.Warn("the redaction policy is not usable: the action recorder masks every value", "err", err)
		mask = []string{"*"}
	}
	b, _ := json.Marshal(mask)
	src := strings.Replace(script, placeholder, name, 1)
	src = strings.Replace(src, maskPlaceholder, base64.StdEncoding.EncodeToString(b), 1)
	return sensitive.JS + ";\n" + src
}

// Config configures a Recorder. Store and Tabs are required.
type Config struct {
	Store *capture.Store
	Tabs  *tabs.Manager
	// Export receives the user's actions while a session records; nil
	// refuses recording_start (observe actions still works).
	Export *export.Recorder
	// Secrets adds the redaction policy's mask selectors to the built-in
	// sensitive ones (internal/sensitive): values typed or chosen in those
	// elements are recorded as masked. They are read at each install.
	Secrets sensitive.Func
	Logger  *slog.Logger
	Now     func() time.Time // default time.Now
}

// Recorder turns the in-page recorder's reports into capture entries and
// recordings. Safe for concurrent use; it starts no goroutines.
type Recorder struct {
	cfg     Config
	dropped atomic.Uint64 // reports refused: malformed, oversize, stale binding
	// alive reports a session that has not ended (set by Register); a
	// recording of an ended session is dropped when room is needed.
	alive func(sid string) bool

	mu    sync.Mutex
	tabs  map[int]*tabState
	calls map[string]*calls     // session → its interact calls (source.go)
	recs  map[string]*recording // session → its recording (recording.go)
}

// tabState is what the recorder knows of one tab.
type tabState struct {
	binding  string // the binding of the latest install: reports under another name are stale
	scriptID page.ScriptIdentifier
	index    int  // navigation.currentEntry.index of the current document; -1 unknown
	pageNav  bool // the document announced a navigation it started itself
}

// New returns a Recorder.
func New(cfg Config) *Recorder {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Recorder{cfg: cfg, tabs: map[int]*tabState{}, calls: map[string]*calls{}, recs: map[string]*recording{}}
}

// Dropped counts the reports refused so far.
func (r *Recorder) Dropped() uint64 { return r.dropped.Load() }

// tab returns a tab's state, creating it. Called with r.mu held.
func (r *Recorder) tab(id int) *tabState {
	t := r.tabs[id]
	if t == nil {
		t = &tabState{index: -1}
		r.tabs[id] = t
	}
	return t
}

// Forget drops what the recorder knows of a tab that left its session.
func (r *Recorder) Forget(tab int) {
	r.mu.Lock()
	delete(r.tabs, tab)
	r.mu.Unlock()
}

// ForgetSession drops what the recorder keeps of a session that ended:
// its interact calls and its recording.
func (r *Recorder) ForgetSession(sid string) {
	r.mu.Lock()
	delete(r.calls, sid)
	delete(r.recs, sid)
	r.mu.Unlock()
}

func newName() string {
	var b [8]byte
	rand.Read(b[:])
	return "__gasoline_actions_" + hex.EncodeToString(b[:])
}

// Install puts the recorder in a tab whose Runtime domain is enabled: a
// binding and a world under a fresh name, the script in every new document
// and at once in the current ones. A previous install on the same debugger
// session is removed (best effort); reports under its name are ignored from
// now on. Run it after capture's Enable, on every attach.
func (r *Recorder) Install(ctx context.Context, s *cdp.Session) error {
	name := newName()
	r.mu.Lock()
	t := r.tab(s.TabID())
	prevName, prevScript := t.binding, t.scriptID
	t.binding, t.scriptID = name, ""
	r.mu.Unlock()
	if prevScript != "" { // the same debugger session (a re-enable), or a stale id it refuses
		cdproto.Call(ctx, s, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: prevScript})
		cdproto.Call(ctx, s, runtime.RemoveBinding, runtime.RemoveBindingParams{Name: prevName})
	}
	if _, err := cdproto.Call(ctx, s, runtime.AddBinding, runtime.AddBindingParams{Name: name, ExecutionContextName: name}); err != nil {
		return fmt.Errorf("installing the action recorder (Runtime.addBinding): %w", err)
	}
	yes := true
	res, err := cdproto.Call(ctx, s, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: r.source(name), WorldName: name, RunImmediately: &yes})
	if err != nil {
		return fmt.Errorf("installing the action recorder (Page.addScriptToEvaluateOnNewDocument): %w", err)
	}
	r.mu.Lock()
	if t := r.tabs[s.TabID()]; t != nil && t.binding == name {
		t.scriptID = res.Identifier
	}
	r.mu.Unlock()
	return nil
}

// maxReport bounds one report of the in-page recorder.
const maxReport = 64 << 10

// Event handles one cdp.event of an owned tab (the link's read goroutine;
// it does not block): the recorder's reports through the tab's current
// binding. Everything else is ignored.
func (r *Recorder) Event(tab int, session, method string, params json.RawMessage) {
	if method != "Runtime.bindingCalled" || session != "" {
		return
	}
	res := gjson.GetManyBytes(params, "name", "payload")
	r.mu.Lock()
	t := r.tabs[tab]
	current := t != nil && t.binding != "" && t.binding == res[0].Str
	r.mu.Unlock()
	if !current {
		if strings.HasPrefix(res[0].Str, "__gasoline_actions_") {
			r.dropped.Add(1) // a previous install's world, still in the page
		}
		return
	}
	sid, owned := r.cfg.Tabs.Registry().Owner(tab)
	if !owned {
		return
	}
	rep, err := parseReport(res[1].Str)
	if err != nil {
		r.dropped.Add(1)
		r.cfg.Logger.Debug("action recorder report refused", "tab", tab, "bytes", len(res[1].Str), "err", err)
		return
	}
	switch rep.T {
	case "nav", "ready", "navigating":
		r.navigation(tab, sid, rep)
	default:
		r.action(tab, sid, rep)
	}
}

// action stores one reported action, and records it for the session's
// export while the session records and the user (not the agent) did it.
func (r *Recorder) action(tab int, sid string, rep report) {
	a := rep.action()
	a.Source = "user"
	if r.agentAt(sid, rep.at()) {
		a.Source = "agent"
	}
	stored, ok := r.cfg.Store.AddAction(tab, a)
	if !ok {
		return // redaction refused it: fail closed
	}
	r.mu.Lock()
	r.tab(tab).pageNav = false // the document is still here: its announced navigation did not happen
	rec := r.recs[sid]
	if rec != nil && stored.Source == "user" {
		rec.actions++
	}
	r.mu.Unlock()
	if rec != nil && stored.Source == "user" && r.cfg.Export != nil {
		r.cfg.Export.Action(sid, exportAction(tab, stored))
	}
}
