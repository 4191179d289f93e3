// Package interact serves the interact tool — the actions engine's modes
// and the tab modes — and observe snapshot, over the relay: one place that
// owns a tab's snapshot refs, its out-of-process iframes' sessions and its
// action queue, so a snapshot never interleaves with an action.
package interact

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
)

// Config configures an Interact. Every field but Logger is required.
type Config struct {
	Tabs *tabs.Manager
	// CDP is a typed CDP session on a tab of the browser.
	CDP func(tab int) *cdp.Session
	// Link answers tabs.get for switch_tab.
	Link tabs.Caller
	// Capture holds the open dialogs (they block snapshots) and what the
	// actions engine reads back after an action.
	Capture *capture.Store
	// Dir is the state directory: snapshots written to_file go under
	// Dir/captures, and the engine never uploads from it.
	Dir string
	// Egress is the redaction gateway's last stage: files written for
	// the agent pass it.
	Egress *redact.Gateway
	// Secrets are the redaction policy's mask selectors, added to the
	// built-in sensitive ones (internal/sensitive) in snapshots and reads.
	Secrets sensitive.Func
	// Redact is the server stage of the redaction gateway: execute_js's
	// result is redacted whole before it is cut.
	Redact func(string) (string, error)
	Logger *slog.Logger
}

// Interact serves the interact tool and observe snapshot: the snapshot
// refs of every tab, the child sessions of out-of-process iframes (for
// refs and frames inside them), the actions engine that runs one action
// at a time per tab, and the tab modes (new_tab, navigate, switch_tab,
// close_tab).
type Interact struct {
	tabs     *tabs.Manager
	link     tabs.Caller
	owned    func(tab int) bool
	snaps    *snapshot.Snapshotter
	children *snapshot.Children
	eng      *actions.Engine
	capture  actions.Capture // open dialogs block snapshots
	dir      string
	egress   *redact.Gateway
}

// New returns an Interact.
func New(cfg Config) *Interact {
	x := &Interact{tabs: cfg.Tabs, link: cfg.Link, owned: cfg.Tabs.Registry().Owned, children: snapshot.NewChildren(),
		capture: cfg.Capture, dir: cfg.Dir, egress: cfg.Egress}
	session := func(tab int, sid string) cdproto.Session {
		c := cfg.CDP(tab)
		if sid != "" {
			return c.Child(sid)
		}
		return c
	}
	x.snaps = snapshot.New(snapshot.Config{Session: session, Child: x.children.Lookup, Secrets: cfg.Secrets})
	protected := []string{cfg.Dir} // Gasoline's state directory, and the OS default one too
	if d, err := state.DefaultDir(); err == nil {
		protected = append(protected, d)
	}
	x.eng = actions.New(actions.Config{Session: session, Snapshots: x.snaps, Child: x.children.Lookup,
		Capture: cfg.Capture, Protected: protected, Uploads: uploadsDir(cfg.Dir), Secrets: cfg.Secrets, Redact: cfg.Redact, Logger: cfg.Logger})
	return x
}

// Register makes every mode of the interact tool work, and observe
// snapshot.
func (x *Interact) Register(m *mcpserver.Server) {
	for _, what := range actions.Modes {
		m.Handle("interact", what, x.do)
	}
	m.Handle("interact", "new_tab", x.newTab)
	m.Handle("interact", "navigate", x.navigate)
	m.Handle("interact", "switch_tab", x.switchTab)
	m.Handle("interact", "close_tab", x.closeTab)
	m.Handle("observe", "snapshot", x.snapshot)
}

// Event keeps refs and child sessions in step with the tab: a new document
// in the main frame makes every ref stale; out-of-process iframes attach
// and detach child sessions. It runs on the link's read goroutine, before
// the CDP router hands the event to waiters, and never blocks.
func (x *Interact) Event(method string, tab int, session, cdpMethod string, params json.RawMessage) {
	switch method {
	case "cdp.event":
	case "cdp.attached", "cdp.detached":
		x.children.Forget(tab) // child sessions do not survive a detach
		return
	default:
		return
	}
	switch cdpMethod {
	case page.FrameNavigated.Method:
		if session != "" || !x.owned(tab) {
			return
		}
		var ev page.EventFrameNavigated
		if jsonv2.Unmarshal(params, &ev) == nil && ev.Frame != nil && ev.Frame.ParentID == "" {
			x.snaps.Invalidate(tab)
			x.eng.Invalidate(tab)
		}
	case target.AttachedToTarget.Method:
		var ev target.EventAttachedToTarget
		if jsonv2.Unmarshal(params, &ev) == nil {
			x.children.Attached(tab, &ev)
		}
	case target.DetachedFromTarget.Method:
		var ev target.EventDetachedFromTarget
		if jsonv2.Unmarshal(params, &ev) == nil {
			x.children.Detached(tab, &ev)
		}
	}
}

// Forget drops what is kept about a tab that left its session.
func (x *Interact) Forget(tab int) {
	x.eng.Forget(tab)
	x.snaps.Forget(tab)
	x.children.Forget(tab)
}

// Snapshots is the snapshot engine (its refs are the tabs' current ones).
func (x *Interact) Snapshots() *snapshot.Snapshotter { return x.snaps }

// Lock holds a tab's action queue: nothing else acts on the tab (nor
// takes a snapshot of it) until the returned unlock is called.
func (x *Interact) Lock(ctx context.Context, tab int) (func(), error) { return x.eng.Lock(ctx, tab) }

// Describe names the element a target points at (button "Pay now"), or
// "" when it has no element target or it cannot be named before ctx ends
// (the action then reports its own error).
func (x *Interact) Describe(ctx context.Context, tab int, t actions.Target) string {
	if t.Ref == "" && t.Selector == "" {
		return ""
	}
	d, err := x.eng.Describe(ctx, tab, t)
	if err != nil {
		return ""
	}
	return d
}

// lockTab holds a tab's action queue around a tab-manager call on an
// existing tab (navigate), so it never interleaves with an action. It
// returns a no-op when the session names no tab it can use (the call
// then opens one, or fails on its own).
func (x *Interact) lockTab(ctx context.Context, c *mcpserver.Call) (func(), error) {
	tab, ok := x.tabs.Resolve(c.Session.ID(), c.Int("tab_id", 0))
	if !ok {
		return func() {}, nil
	}
	return x.eng.Lock(ctx, tab)
}

// uploadsDir is where files uploaded by content wait for the browser
// ("" without a state directory: uploads by content are refused).
func uploadsDir(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "uploads")
}
