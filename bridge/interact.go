package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// interactor serves the interact engine's modes and observe snapshot: the
// snapshot refs of every tab, the child sessions of out-of-process iframes
// (for refs and frames inside them), and the actions engine that runs one
// action at a time per tab.
type interactor struct {
	tabs     *tabs.Manager
	owned    func(tab int) bool
	snaps    *snapshot.Snapshotter
	children *snapshot.Children
	eng      *actions.Engine
	capture  actions.Capture // open dialogs block snapshots
	dir      string          // state directory: snapshots written to_file go under captures/
	egress   *redact.Gateway // files written for the agent pass it last
}

func newInteractor(s *Server, b *browser) *interactor {
	x := &interactor{tabs: b.tabs, owned: b.tabs.Registry().Owned, children: snapshot.NewChildren(), capture: b.store, dir: s.cfg.Dir, egress: s.Egress()}
	session := func(tab int, sid string) cdproto.Session {
		c := s.CDP(tab)
		if sid != "" {
			return c.Child(sid)
		}
		return c
	}
	x.snaps = snapshot.New(snapshot.Config{Session: session, Child: x.children.Lookup})
	x.eng = actions.New(actions.Config{Session: session, Snapshots: x.snaps, Child: x.children.Lookup,
		Capture: b.store, Protected: []string{s.cfg.Dir}, Logger: s.log})
	return x
}

// register makes every mode of the engine work, and observe snapshot.
func (x *interactor) register(m *mcpserver.Server) {
	for _, what := range actions.Modes {
		m.Handle("interact", what, x.do)
	}
	m.Handle("observe", "snapshot", x.snapshot)
}

// event keeps refs and child sessions in step with the tab: a new document
// in the main frame makes every ref stale; out-of-process iframes attach
// and detach child sessions. It runs on the link's read goroutine, before
// the CDP router hands the event to waiters, and never blocks.
func (x *interactor) event(method string, tab int, session, cdpMethod string, params json.RawMessage) {
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

// forget drops what is kept about a tab that left its session.
func (x *interactor) forget(tab int) {
	x.eng.Forget(tab)
	x.snaps.Forget(tab)
	x.children.Forget(tab)
}

// internalArgs are arguments of the call itself, not of the action.
var internalArgs = map[string]bool{"tab_id": true, "background": true, "approval_id": true}

// do runs one interact mode of the engine on the call's tab (tab_id, or
// the session's current tab; a tab the session does not own is refused).
func (x *interactor) do(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	if c.Mode.Name == "batch" {
		if e := batchSteps(c); e != nil {
			return nil, e
		}
	}
	s, err := x.tabs.Session(ctx, c.Session.ID(), c.Int("tab_id", 0))
	if err != nil {
		return nil, err
	}
	args := make(map[string]any, len(c.Args))
	for k, v := range c.Args {
		if !internalArgs[k] {
			args[k] = v
		}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	r, err := x.eng.Do(ctx, s.TabID(), c.Mode.Name, raw)
	if err != nil {
		return nil, err
	}
	if c.Mode.Name == "handle_dialog" {
		return observe.Result(r.Text(), dialogAnswer(r))
	}
	return observe.Result(r.Text(), r)
}

// DialogAnswer is handle_dialog's structured answer: the action's result
// with the dialog's type and the decision at the top, as the tab
// manager's handle_dialog answered before the engine took it over.
type DialogAnswer struct {
	*actions.Result
	Type     string `json:"type,omitempty"`
	Accepted bool   `json:"accepted"`
}

func dialogAnswer(r *actions.Result) DialogAnswer {
	d := DialogAnswer{Result: r}
	if v, ok := r.Value.(map[string]any); ok {
		d.Type, _ = v["type"].(string)
		d.Accepted, _ = v["accepted"].(bool)
	}
	return d
}

// batchSteps refuses a batch whose steps include a sensitive mode: the
// batch is approved as a mutating call, so execute_js and upload must be
// approved on their own.
func batchSteps(c *mcpserver.Call) *tools.Error {
	steps, _ := c.Args["steps"].([]any)
	for i, st := range steps {
		m, _ := st.(map[string]any)
		what, _ := m["what"].(string)
		if what == "" {
			what, _ = m["action"].(string)
		}
		if cl, err := tools.Classify("interact", what); err == nil && cl == tools.Sensitive {
			return tools.Errorf(tools.CodeInvalidArgument, "step %d (%s) is sensitive and cannot run inside a batch; call interact %s on its own (it needs its own approval)", i+1, what, what)
		}
	}
	return nil
}

// SnapshotResult is observe snapshot's structured answer: the metadata; the
// tree itself is the text content.
type SnapshotResult struct {
	TabID      int    `json:"tab_id"`
	URL        string `json:"url,omitempty"`
	Generation int    `json:"generation"`
	Nodes      int    `json:"nodes"` // lines of the whole snapshot
	Shown      int    `json:"shown"` // lines shown (depth and limit cut)
	Refs       int    `json:"refs"`
	File       string `json:"file,omitempty"` // to_file: where the text went
	// Matches counts the lines a find matched; Diff what a diff found.
	Matches *int                `json:"matches,omitempty"`
	Diff    *snapshot.DiffStats `json:"diff,omitempty"`
}

// snapshot takes the accessibility snapshot of the call's tab, holding the
// tab's action lock so that it never interleaves with an action.
func (x *interactor) snapshot(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	s, err := x.tabs.Session(ctx, c.Session.ID(), c.Int("tab_id", 0))
	if err != nil {
		return nil, err
	}
	tab := s.TabID()
	o := snapshot.Options{InteractiveOnly: c.Bool("interactive_only"), Depth: c.Int("depth", 0), Limit: c.Int("limit", 0),
		Root: c.Str("ref"), Frame: c.Str("frame"), Find: c.Str("find"), Diff: c.Bool("diff"), Session: c.Session.ID()}
	if o.Root == "" {
		o.Root = c.Str("selector")
	}
	unlock, err := x.eng.Lock(ctx, tab)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if ds := x.capture.OpenDialogs(tab); len(ds) > 0 {
		d := ds[len(ds)-1]
		return nil, &tools.Error{Code: actions.CodeDialogOpen,
			NextAction: &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "handle_dialog", "accept": true, "tab_id": tab}},
			Message:    fmt.Sprintf("a %s dialog (%q) blocks tab %d; answer it with interact handle_dialog first", d.Type, d.Message, tab)}
	}
	r, err := x.snaps.Take(ctx, tab, o)
	if err != nil && strings.Contains(err.Error(), "navigated during the snapshot") {
		r, err = x.snaps.Take(ctx, tab, o) // the page was still settling a load: once more
	}
	if err != nil {
		return nil, snapshotErr(err)
	}
	res := SnapshotResult{TabID: tab, URL: x.tabs.URL(tab), Generation: r.Generation, Nodes: r.Nodes, Shown: r.Shown, Refs: r.Refs, Diff: r.Diff}
	head := fmt.Sprintf("tab %d snapshot %d (%d refs)", tab, r.Generation, r.Refs)
	if res.URL != "" {
		head += " of " + res.URL
	}
	if o.Find != "" {
		res.Matches = &r.Matches
	}
	if r.Note != "" {
		head += " · " + r.Note
	}
	if c.Bool("to_file") {
		text, err := x.egress.Text(c.Session.ID(), r.Text)
		if err != nil {
			return nil, blockedError("the snapshot file", err)
		}
		if res.File, err = x.saveSnapshot(tab, text); err != nil {
			return nil, err
		}
		return observe.Result(fmt.Sprintf("%s: %d lines written to %s", head, r.Shown, res.File), res)
	}
	// The tree is in the text only: repeating it in the structured answer
	// would double what the agent pays for in tokens.
	return observe.Result(head+"\n"+r.Text, res)
}

func (x *interactor) saveSnapshot(tab int, text string) (string, error) {
	dir := filepath.Join(x.dir, "captures")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("snapshot: creating %s: %w", dir, err)
	}
	p := filepath.Join(dir, fmt.Sprintf("snapshot-tab%d-%d.txt", tab, time.Now().UnixMilli()))
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		return "", fmt.Errorf("snapshot: writing %s: %w", p, err)
	}
	return p, nil
}

// snapshotErr turns a snapshot failure into a structured tool error.
func snapshotErr(err error) error {
	var stale *snapshot.StaleRefError
	if errors.As(err, &stale) {
		return &tools.Error{Code: actions.CodeStaleRef, Message: stale.Error(),
			NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "snapshot"}}}
	}
	if oe := (*snapshot.OptionError)(nil); errors.As(err, &oe) {
		return tools.Errorf(tools.CodeInvalidArgument, "%s", oe.Msg)
	}
	if msg, ok := strings.CutPrefix(err.Error(), "snapshot: "); ok && !strings.Contains(msg, ": ") {
		return tools.Errorf(tools.CodeInvalidArgument, "%s", msg)
	}
	return tabs.ToolError(err)
}

// resolveRef maps a snapshot ref to its node for observe screenshot, in
// the tab's action queue.
func (x *interactor) resolveRef(ctx context.Context, tab int, ref string) (cdproto.BackendNodeID, error) {
	unlock, err := x.eng.Lock(ctx, tab)
	if err != nil {
		return 0, err
	}
	defer unlock()
	t, err := x.snaps.Resolve(ctx, tab, ref)
	if err != nil {
		return 0, snapshotErr(err)
	}
	if t.SessionID != "" {
		return 0, tools.Errorf(tools.CodeInvalidArgument, "ref %s (%s) is inside an out-of-process iframe; screenshot the iframe's ref instead", ref, t.Desc)
	}
	return t.BackendNodeID, nil
}

// describeWait bounds naming a gated action's target for the approval
// prompt: it waits in the tab's queue, and a prompt without the name is
// better than a late one.
const describeWait = time.Second

// describe names the element a gated call targets (button "Pay now"), or
// "" when it has no element target or it cannot be named in time (the
// action then reports its own error).
func (x *interactor) describe(tab int, c *mcpserver.Call) string {
	t := actions.Target{Ref: c.Str("ref"), Selector: c.Str("selector"), Frame: c.Str("frame")}
	if c.Mode.Tool != "interact" || t.Ref == "" && t.Selector == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), describeWait)
	defer cancel()
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
func (x *interactor) lockTab(ctx context.Context, c *mcpserver.Call) (func(), error) {
	tab, ok := x.tabs.Resolve(c.Session.ID(), c.Int("tab_id", 0))
	if !ok {
		return func() {}, nil
	}
	return x.eng.Lock(ctx, tab)
}
