// Package interact serves the interact tool — the actions engine's modes
// and the tab modes — and observe snapshot, over the relay. A tab's
// snapshot refs and action queue live in its target (internal/target),
// so a snapshot never interleaves with an action; Interact is the target
// listener that keeps them in step with the page.
package interact

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Config configures an Interact. Every field but Logger is required.
type Config struct {
	// Tabs resolves a session's tabs and holds their targets.
	Tabs *tabs.Manager
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
// engine and the actions engine, which keep each tab's refs and action
// queue in its target and run one action at a time per tab, and the tab
// modes (new_tab, navigate, switch_tab, close_tab).
type Interact struct {
	tabs    *tabs.Manager
	link    tabs.Caller
	snaps   *snapshot.Snapshotter
	eng     *actions.Engine
	capture actions.Capture // open dialogs block snapshots
	dir     string
	egress  *redact.Gateway
}

// New returns an Interact.
func New(cfg Config) *Interact {
	x := &Interact{tabs: cfg.Tabs, link: cfg.Link, capture: cfg.Capture, dir: cfg.Dir, egress: cfg.Egress}
	x.snaps = snapshot.New(snapshot.Config{Target: cfg.Tabs.Target, Secrets: cfg.Secrets})
	protected := []string{cfg.Dir} // Gasoline's state directory, and the OS default one too
	if d, err := state.DefaultDir(); err == nil {
		protected = append(protected, d)
	}
	x.eng = actions.New(actions.Config{Target: cfg.Tabs.Target, Snapshots: x.snaps,
		Capture: cfg.Capture, Protected: protected, Uploads: uploadsDir(cfg.Dir), Secrets: cfg.Secrets, Redact: cfg.Redact, Logger: cfg.Logger})
	return x
}

// Register makes every mode of the interact tool work, and observe
// snapshot.
func (x *Interact) Register(m *mcpserver.Server) {
	special := map[string]mcpserver.Handler{"batch": x.batch, "refresh": x.refresh, "handle_dialog": x.handleDialog}
	t, _ := tools.Get("interact")
	for _, mode := range t.Modes {
		if h, ok := special[mode.Name]; ok {
			m.Handle("interact", mode.Name, h)
		} else if actions.Runs(mode.Name) {
			m.Handle("interact", mode.Name, x.do)
		}
	}
	m.Handle("interact", "new_tab", x.newTab)
	m.Handle("interact", "navigate", x.navigate)
	m.Handle("interact", "switch_tab", x.switchTab)
	m.Handle("interact", "close_tab", x.closeTab)
	m.Handle("observe", "snapshot", x.snapshot)
}

// Event keeps a tab's refs in step with the page (a target.Listener): a
// new document in the main frame makes every ref stale and the engine's
// isolated worlds with it. It runs on the link's read goroutine, before
// the target's waiters get the event, and never blocks.
func (x *Interact) Event(t *target.Target, ev target.Event) {
	if ev.Method != page.FrameNavigated.Method || ev.Session != "" {
		return
	}
	var nav page.EventFrameNavigated
	if jsonv2.Unmarshal(ev.Params, &nav) == nil && nav.Frame != nil && nav.Frame.ParentID == "" {
		snapshot.Invalidate(t)
		actions.Invalidate(t)
	}
}

// Snapshots is the snapshot engine (its refs are the tabs' current ones).
func (x *Interact) Snapshots() *snapshot.Snapshotter { return x.snaps }

// Lock holds a tab's action queue: nothing else acts on the tab (nor
// takes a snapshot of it) until the returned unlock is called.
func (x *Interact) Lock(ctx context.Context, tab int) (func(), error) { return x.eng.Lock(ctx, tab) }

// See names the element a target points at (button "Pay now") and, with
// how (actions.HowClick, HowEnter), says what activating it does: the
// approval gate's one round trip for a call's words and risk. Without how
// a target that is no element (a point, none) is not looked up. An
// element that cannot be found before ctx ends is named as its snapshot
// recorded it (or not at all), with an effect that says it was not found.
func (x *Interact) See(ctx context.Context, tab int, t actions.Target, how string) actions.Seen {
	if how == "" && t.Ref == "" && t.Selector == "" {
		return actions.Seen{}
	}
	s, err := x.eng.See(ctx, tab, t, how)
	if err != nil {
		return actions.Seen{Desc: s.Desc}
	}
	return s
}

// HistoryURL is where back (-1) or forward (+1) would take the tab, or ""
// when it has no such entry or the history cannot be read.
func (x *Interact) HistoryURL(ctx context.Context, tab, delta int) string {
	u, err := x.eng.HistoryURL(ctx, tab, delta)
	if err != nil {
		return ""
	}
	return u
}

// lockTab holds a tab's action queue around a tab-manager call on an
// existing tab (navigate), so it never interleaves with an action. It
// returns a no-op when the session names no tab it can use (the call
// then opens one, or fails on its own).
func (x *Interact) lockTab(ctx context.Context, c *mcpserver.Call) (func(), error) {
	tab, ok := x.tabs.Resolve(c.Session.ID(), c.Args.TabID)
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
