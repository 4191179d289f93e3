package browsers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// CodeBrowserUnresponsive: the browser holding the tab has stopped
// answering (its extension or native host hangs); other browsers are not
// affected.
const CodeBrowserUnresponsive = "browser_unresponsive"

// Call sends a request to a browser and waits for its reply. A request that
// names tabs (tab_id, tab_ids: Gasoline tab ids, all of one browser) goes
// to the browser holding them, with Chrome's ids; one that names none goes
// to the default browser (Default). It implements the daemon's Caller.
func (h *Hub) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("browsers: encoding %s params: %w", method, err)
	}
	tabs, err := tabsIn(raw, outboundFields)
	if err != nil {
		return nil, err
	}
	if len(tabs) == 0 {
		slot, err := h.Default()
		if err != nil {
			return nil, err
		}
		return h.send(ctx, slot, 0, method, raw)
	}
	slot := SlotOf(tabs[0])
	for _, t := range tabs[1:] {
		if SlotOf(t) != slot {
			return nil, protocol.Errorf(protocol.CodeBadRequest, false, "tabs %d and %d are in different browsers; one call acts in one browser", tabs[0], t)
		}
	}
	local, err := rewrite(raw, outboundFields, func(t int) int { _, l := Split(t); return l })
	if err != nil {
		return nil, err
	}
	tab := 0
	if len(tabs) == 1 {
		tab = tabs[0]
	}
	return h.send(ctx, slot, tab, method, local)
}

// CallIn sends a request that names no tab to the browser of slot
// (tabs.create, tabs.query).
func (h *Hub) CallIn(ctx context.Context, slot Slot, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("browsers: encoding %s params: %w", method, err)
	}
	return h.send(ctx, slot, 0, method, raw)
}

// send calls method on slot's browser: bounded in flight per browser, a
// browser suspected of not answering is pinged first (and refused at once
// if it still does not answer), and a call on tab ends at once when the
// tab is revoked.
func (h *Hub) send(ctx context.Context, slot Slot, tab int, method string, raw []byte) (json.RawMessage, error) {
	if err := h.calls.refused(tab, method); err != nil {
		return nil, err
	}
	h.mu.Lock()
	c := h.live[slot]
	h.mu.Unlock()
	if c == nil {
		return nil, h.away(slot, method)
	}
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	default:
		e := protocol.Errorf(protocol.CodeBusy, true, "%d calls already wait on browser %s; retry shortly", cap(c.slots), c.name())
		e.RetryAfterMS = 500
		return nil, e
	}
	if err := c.live.check(ctx, c.link, h.cfg.ProbeTimeout); err != nil {
		return nil, protocol.Errorf(CodeBrowserUnresponsive, true,
			"browser %s stopped answering (its Gasoline extension or native host hangs); calls to other browsers go on. Retry later, or restart that browser", c.name())
	}
	cctx, done := h.calls.track(ctx, tab)
	defer done()
	start := time.Now()
	res, err := c.link.Call(cctx, method, json.RawMessage(raw))
	if err == nil {
		return res, nil
	}
	if cause := context.Cause(cctx); cctx.Err() != nil && ctx.Err() == nil && cause != nil {
		return nil, cause // revoked: the tab left the session
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && !c.link.LastReceived().After(start) {
		c.live.suspect(start) // nothing at all came back while we waited
	}
	return nil, err
}

// away explains a call to a browser that is not connected.
func (h *Hub) away(slot Slot, method string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.recs {
		if r.Slot == slot {
			return protocol.Errorf(protocol.CodeExtensionDisconnected, true,
				"browser %s is not connected (for %s); it reconnects by itself when it runs — retry shortly, or use a tab of a connected browser (observe tabs lists them)", describe(r), method)
		}
	}
	if len(h.live) == 0 {
		return noBrowser()
	}
	return protocol.Errorf(protocol.CodeTabClosed, false, "no connected browser has this tab (for %s); observe tabs lists your tabs", method)
}

func (c *conn) name() string { return describe(c.rec) }

func describe(r *record) string {
	s := shortID(r.BrowserID)
	if r.Name != "" {
		s = r.Name + " [" + s + "]"
	}
	if r.Profile != "" {
		s += fmt.Sprintf(" profile %q", r.Profile)
	}
	return s
}

// liveness notices a browser that stopped answering: a call timed out and
// nothing at all came back meanwhile. Until the browser sends anything
// again, each call first waits for one ping (at most the probe timeout;
// one ping a second at most, shared by the calls that need it).
type liveness struct {
	mu        sync.Mutex
	since     time.Time // suspected since; zero when not
	probed    time.Time
	probedOK  bool
	probeLock chan struct{}
}

func (v *liveness) suspect(at time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.since.IsZero() {
		v.since = at
	}
}

// suspected reports a browser that has been silent since it was suspected.
func (v *liveness) suspected(l *extlink.Link) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.since.IsZero() {
		return false
	}
	if l.LastReceived().After(v.since) {
		v.since = time.Time{} // it spoke again
		return false
	}
	return true
}

// probeFresh is how long one probe's answer stands for the calls after it.
const probeFresh = time.Second

// check returns nil when the browser answers (or is not suspected).
func (v *liveness) check(ctx context.Context, l *extlink.Link, timeout time.Duration) error {
	if !v.suspected(l) {
		return nil
	}
	v.mu.Lock()
	if v.probeLock == nil {
		v.probeLock = make(chan struct{}, 1)
	}
	lock := v.probeLock
	v.mu.Unlock()
	select {
	case lock <- struct{}{}:
		defer func() { <-lock }()
	case <-ctx.Done():
		return ctx.Err()
	}
	v.mu.Lock()
	if time.Since(v.probed) < probeFresh {
		ok := v.probedOK
		v.mu.Unlock()
		if ok {
			return nil
		}
		return errors.New("browsers: browser does not answer")
	}
	v.mu.Unlock()
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := l.Call(pctx, protocol.MethodPing, map[string]any{})
	v.mu.Lock()
	defer v.mu.Unlock()
	v.probed, v.probedOK = time.Now(), err == nil
	if err == nil {
		v.since = time.Time{}
	}
	return err
}

// inflight tracks the calls waiting on each tab, so that a tab leaving its
// session ends them at once with the reason (Revoke), and remembers the
// tabs revoked since, whose page no call may touch again until a session
// holds them anew (Allow): a call that outlived the revocation (a wait
// that polls the page) must not re-attach the debugger to the user's tab.
type inflight struct {
	mu      sync.Mutex
	byTab   map[int]map[*context.CancelCauseFunc]struct{}
	revoked map[int]error
	order   []int // revoked tabs, oldest first (bounded)
}

// maxRevoked bounds the revoked tabs remembered.
const maxRevoked = 4096

func (f *inflight) init() {
	f.byTab = map[int]map[*context.CancelCauseFunc]struct{}{}
	f.revoked = map[int]error{}
}

// pageMethods act on a tab's page (and attach the debugger to it).
var pageMethods = map[string]bool{"cdp.send": true, "cdp.inject": true}

// refused is the error of a page call on a revoked tab, or nil.
func (f *inflight) refused(tab int, method string) error {
	if tab == 0 || !pageMethods[method] {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.revoked[tab]
}

func (f *inflight) track(ctx context.Context, tab int) (context.Context, func()) {
	if tab == 0 {
		return ctx, func() {}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	key := &cancel
	f.mu.Lock()
	set := f.byTab[tab]
	if set == nil {
		set = map[*context.CancelCauseFunc]struct{}{}
		f.byTab[tab] = set
	}
	set[key] = struct{}{}
	f.mu.Unlock()
	return cctx, func() {
		f.mu.Lock()
		delete(set, key)
		if len(set) == 0 && f.byTab[tab] != nil && len(f.byTab[tab]) == 0 {
			delete(f.byTab, tab)
		}
		f.mu.Unlock()
		cancel(nil)
	}
}

// Allow lets page calls reach tab again (a session holds it anew).
func (h *Hub) Allow(tab int) {
	h.calls.mu.Lock()
	defer h.calls.mu.Unlock()
	if _, ok := h.calls.revoked[tab]; ok {
		delete(h.calls.revoked, tab)
		h.calls.order = slices.DeleteFunc(h.calls.order, func(t int) bool { return t == tab })
	}
}

// Revoke ends every call waiting on tab with cause as its error (the tab
// left its session: moved out of its group, sharing stopped, session
// ended), and refuses page calls on it with cause until Allow.
func (h *Hub) Revoke(tab int, cause error) {
	h.calls.mu.Lock()
	var cancels []context.CancelCauseFunc
	for cancel := range h.calls.byTab[tab] {
		cancels = append(cancels, *cancel)
	}
	delete(h.calls.byTab, tab)
	if _, seen := h.calls.revoked[tab]; !seen {
		h.calls.order = append(h.calls.order, tab)
		if len(h.calls.order) > maxRevoked {
			delete(h.calls.revoked, h.calls.order[0])
			h.calls.order = h.calls.order[1:]
		}
	}
	h.calls.revoked[tab] = cause
	h.calls.mu.Unlock()
	for _, cancel := range cancels {
		cancel(cause)
	}
}
