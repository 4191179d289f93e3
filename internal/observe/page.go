package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// PageResult is observe page's answer.
type PageResult struct {
	TabID      int              `json:"tab_id"`
	URL        string           `json:"url"`
	Title      string           `json:"title"`
	LoadState  string           `json:"load_state"` // loading, interactive, complete (document.readyState)
	Visibility string           `json:"visibility,omitempty"`
	Viewport   *Viewport        `json:"viewport,omitempty"`
	Frames     []Frame          `json:"frames"`
	Dialogs    []capture.Dialog `json:"open_dialogs,omitempty"`
	Note       string           `json:"note,omitempty"`
}

// Viewport is the visual viewport in CSS pixels.
type Viewport struct {
	Width   int     `json:"width"`
	Height  int     `json:"height"`
	DPR     float64 `json:"device_pixel_ratio"`
	ScrollX int     `json:"scroll_x"`
	ScrollY int     `json:"scroll_y"`
}

// Frame is one frame of the page (the main frame first).
type Frame struct {
	ID     string `json:"id"`
	Parent string `json:"parent_id,omitempty"`
	Name   string `json:"name,omitempty"`
	URL    string `json:"url"`
}

const pageProbe = `(() => ({ready: document.readyState,
visibility: document.visibilityState, w: innerWidth, h: innerHeight, dpr: devicePixelRatio,
sx: Math.round(scrollX), sy: Math.round(scrollY)}))()`

func (o *Observer) page(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := Budget(ctx, c)
	defer cancel()
	s, err := o.session(ctx, c)
	if err != nil {
		return nil, err
	}
	r := PageResult{TabID: s.TabID(), Dialogs: o.cfg.Store.OpenDialogs(s.TabID())}
	if len(r.Dialogs) == 0 {
		// A dialog that opens meanwhile blocks the page, and the calls
		// below would wait for the user: the guard ends them.
		gctx, opened := dialogGuard(ctx, s)
		err = o.readPage(gctx, s, &r)
		if opened() {
			r.Dialogs, err = o.cfg.Store.OpenDialogs(s.TabID()), nil
		}
		if err != nil {
			return nil, err
		}
	}
	if len(r.Dialogs) > 0 {
		r.LoadState, r.Note = "blocked", "a JavaScript dialog is open and blocks the page; interact handle_dialog accepts or dismisses it"
		if r.URL == "" {
			r.URL = o.cfg.Tabs.URL(s.TabID())
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %s\ntitle %q, %s", r.TabID, r.URL, r.Title, r.LoadState)
	if v := r.Viewport; v != nil {
		fmt.Fprintf(&b, ", viewport %dx%d@%gx, scroll %d,%d, %s", v.Width, v.Height, v.DPR, v.ScrollX, v.ScrollY, r.Visibility)
	}
	fmt.Fprintf(&b, "\n%d frames", len(r.Frames))
	for _, f := range r.Frames[min(1, len(r.Frames)):] {
		fmt.Fprintf(&b, "\n- %s %s", f.ID, f.URL)
	}
	for _, d := range r.Dialogs {
		fmt.Fprintf(&b, "\nopen %s dialog: %s", d.Type, quote(d.Message, 200))
	}
	if r.Note != "" {
		b.WriteString("\n" + r.Note)
	}
	return mcpserver.PageResult(b.String(), r, new(untrusted.Page).Add(r.URL, r.Title).AddValue(r.Frames).AddValue(r.Dialogs))
}

// readPage fills r from the page: frames, then the document's state.
func (o *Observer) readPage(ctx context.Context, s *cdp.Session, r *PageResult) error {
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		return tabs.ToolError(err)
	}
	r.Frames = frames(tree.FrameTree, nil)
	if len(r.Frames) > 0 {
		r.URL = r.Frames[0].URL
	}
	r.Frames = append(r.Frames, o.childFrames(ctx, s)...)
	var p struct {
		Ready, Visibility string
		W, H, SX, SY      int
		DPR               float64
	}
	if err := evalJSON(ctx, s, pageProbe, &p); err != nil {
		return err
	}
	r.LoadState, r.Visibility = p.Ready, p.Visibility
	// The address and title as the browser reports them (the tab strip's),
	// never as the page's own script would: a page can fake document.title
	// and location with getters of its own.
	r.URL, r.Title = o.browserTitle(ctx, s, r.URL)
	r.Viewport = &Viewport{Width: p.W, Height: p.H, DPR: p.DPR, ScrollX: p.SX, ScrollY: p.SY}
	return nil
}

// browserTitle is the tab's address and title from the browser (tab
// info), else from CDP's target info; frameURL (the frame tree's, also
// the browser's) when neither answers.
func (o *Observer) browserTitle(ctx context.Context, s *cdp.Session, frameURL string) (string, string) {
	if t, err := o.cfg.Tabs.Info(ctx, s.TabID()); err == nil && t.URL != "" {
		return t.URL, t.Title
	}
	if info, err := cdproto.Call(ctx, s, target.GetTargetInfo, target.GetTargetInfoParams{}); err == nil && info.TargetInfo != nil {
		return info.TargetInfo.URL, info.TargetInfo.Title
	}
	return frameURL, ""
}

func frames(t *page.FrameTree, out []Frame) []Frame {
	if t == nil || t.Frame == nil {
		return out
	}
	f := t.Frame
	out = append(out, Frame{ID: string(f.ID), Parent: string(f.ParentID), Name: f.Name, URL: f.URL + f.URLFragment})
	for _, ch := range t.ChildFrames {
		out = frames(ch, out)
	}
	return out
}

// childFrames lists the frames of the tab's out-of-process iframes, which
// the tab's own frame tree leaves out.
func (o *Observer) childFrames(ctx context.Context, s *cdp.Session) []Frame {
	var out []Frame
	for _, c := range o.cfg.Feed.Children(s.TabID()) {
		if c.Type != "iframe" {
			continue
		}
		if t, err := cdproto.Call(ctx, s.Child(c.SessionID), page.GetFrameTree, cdproto.Empty{}); err == nil {
			out = frames(t.FrameTree, out)
		}
	}
	return out
}

// evalJSON evaluates expression in the page's main world and decodes its
// value into v. A page exception becomes a structured page_error; a dialog
// that opens meanwhile (it blocks the page, so the evaluation would wait
// for the user) ends the wait with dialog_open.
func evalJSON(ctx context.Context, s *cdp.Session, expression string, v any) error {
	yes := true
	gctx, opened := dialogGuard(ctx, s)
	res, err := cdproto.Call(gctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expression, ReturnByValue: &yes, AwaitPromise: &yes, Silent: &yes})
	if opened() {
		return dialogBlocks(s.TabID())
	}
	if err != nil {
		return tabs.ToolError(err)
	}
	if res.ExceptionDetails != nil {
		return tools.Errorf("page_error", "the page refused the read (%s); it may be mid-navigation: retry", res.ExceptionDetails.Text)
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return tools.Errorf("page_error", "the page returned nothing; it may be mid-navigation: retry")
	}
	return json.Unmarshal(res.Result.Value, v)
}

// TabsResult is observe tabs' answer: the session's tabs (nothing else:
// only what is in its tab groups is the agent's to see) and the connected
// browsers.
type TabsResult struct {
	Current int       `json:"current_tab,omitempty"`
	Tabs    []TabInfo `json:"tabs"`
	// GroupID is the session's tab group in the current tab's browser.
	GroupID  int             `json:"group_id"`
	Browsers []browsers.Info `json:"browsers"`
}

// TabInfo is one tab in observe tabs.
type TabInfo struct {
	ID     int    `json:"id"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Status string `json:"status,omitempty"`
	// Browser is the id of the browser holding the tab.
	Browser string `json:"browser,omitempty"`
	// SharedBy is "user" for the user's own tab, shared with the session
	// (moved into its group, or Share in the panel); such a tab is never
	// closed by Gasoline, and the user may take it back at any time.
	SharedBy string `json:"shared_by,omitempty"`
	// Opener is the session's tab whose page opened this one (a link with
	// a target, window.open): a popup joins its opener's session.
	Opener int `json:"opener,omitempty"`
}

func (o *Observer) tabs(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := Budget(ctx, c)
	defer cancel()
	sid := c.Session.ID()
	list := o.cfg.Browsers.List()
	r := TabsResult{GroupID: tabs.NoGroup, Tabs: []TabInfo{}, Browsers: list}
	info := map[browsers.Slot]browsers.Info{}
	for _, b := range list {
		info[b.Slot] = b
	}
	known := map[int]tabs.Tab{}
	for slot := range o.slotsOf(sid) {
		if info[slot].State == browsers.StateDisconnected {
			continue
		}
		present, err := o.listIn(ctx, slot)
		if err != nil {
			return nil, tabs.ToolError(err)
		}
		o.cfg.Tabs.Reconcile(sid, slot, present)
		for id, t := range present {
			known[id] = t
		}
	}
	mine := o.cfg.Tabs.Registry().Tabs(sid)
	if len(mine) > 0 {
		r.Current = mine[0]
		r.GroupID = o.cfg.Tabs.Registry().Group(sid, browsers.SlotOf(mine[0]))
	}
	for _, id := range mine {
		t, ok := known[id]
		if !ok {
			t = tabs.Tab{URL: o.cfg.Tabs.URL(id)}
		}
		ti := TabInfo{ID: id, URL: t.URL, Title: t.Title, Status: t.Status, Browser: info[browsers.SlotOf(id)].ID}
		if o.cfg.Tabs.IsShared(id) {
			ti.SharedBy = "user"
		}
		ti.Opener, _ = o.cfg.Tabs.Registry().Opener(id)
		r.Tabs = append(r.Tabs, ti)
	}
	page := new(untrusted.Page)
	for _, t := range r.Tabs {
		page.Add(t.URL, t.Title)
	}
	return mcpserver.PageResult(tabsText(r, info, c.Session.Info().Client.Name), r, page)
}

// slotsOf is the browsers where the session has tabs or groups.
func (o *Observer) slotsOf(sid string) map[browsers.Slot]bool {
	out := map[browsers.Slot]bool{}
	for _, t := range o.cfg.Tabs.Registry().Tabs(sid) {
		out[browsers.SlotOf(t)] = true
	}
	for s := range o.cfg.Tabs.Registry().Groups(sid) {
		out[s] = true
	}
	return out
}

// listIn lists a browser's tabs by Gasoline id.
func (o *Observer) listIn(ctx context.Context, slot browsers.Slot) (map[int]tabs.Tab, error) {
	raw, err := o.cfg.Browsers.CallIn(ctx, slot, "tabs.query", struct{}{})
	if err != nil {
		return nil, err
	}
	var q struct {
		Tabs []tabs.Tab `json:"tabs"`
	}
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, fmt.Errorf("observe: decoding tabs.query: %w", err)
	}
	out := make(map[int]tabs.Tab, len(q.Tabs))
	for _, t := range q.Tabs {
		t.ID = browsers.TabID(slot, t.ID)
		out[t.ID] = t
	}
	return out, nil
}

func tabsText(r TabsResult, info map[browsers.Slot]browsers.Info, client string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tabs in this session", len(r.Tabs))
	for _, t := range r.Tabs {
		mark := " "
		if t.ID == r.Current {
			mark = "*"
		}
		who := "opened by you"
		if t.SharedBy == "user" {
			who = "the user's own tab, shared with you"
		}
		if t.Opener != 0 {
			who += fmt.Sprintf("; opened by tab %d's page", t.Opener)
		}
		fmt.Fprintf(&b, "\n%s %d %s %q (%s", mark, t.ID, t.URL, t.Title, who)
		if len(info) > 1 {
			fmt.Fprintf(&b, "; in %s", info[browsers.SlotOf(t.ID)].Label())
		}
		b.WriteString(")")
	}
	if len(r.Tabs) == 0 {
		b.WriteString("\nthis session has no tab: interact new_tab opens one")
	}
	b.WriteString("\nbrowsers:")
	for _, x := range r.Browsers {
		fmt.Fprintf(&b, " %s (%s", x.Label(), x.State)
		if x.Default {
			b.WriteString(", default for new tabs")
		}
		b.WriteString(");")
	}
	if len(r.Browsers) == 0 {
		b.WriteString(" none connected;")
	}
	fmt.Fprintf(&b, "\nonly the tabs in this session's tab group are yours to see: the user can share another tab by moving it into the group %q or with Share in the Gasoline panel", tabs.GroupTitle(client))
	return b.String()
}

// dialogGuard returns a context that ends when a JavaScript dialog opens in
// the tab, and a func that stops watching and reports whether one did.
func dialogGuard(ctx context.Context, s *cdp.Session) (context.Context, func() bool) {
	events, unsubscribe := s.Subscribe("Page.javascriptDialogOpening")
	ctx, cancel := context.WithCancel(ctx)
	var opened bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case _, ok := <-events:
			if ok {
				opened = true
				cancel()
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() bool {
		cancel()
		<-done
		unsubscribe()
		return opened
	}
}
