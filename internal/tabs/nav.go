package tabs

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The wait_until values.
const (
	WaitLoad        = "load"
	WaitDOMContent  = "domcontentloaded"
	WaitNetworkIdle = "network_idle"
)

// lifecycleName maps wait_until to the Page.lifecycleEvent that ends the
// wait (Enable must turn lifecycle events on).
var lifecycleName = map[string]string{
	WaitLoad:        "load",
	WaitDOMContent:  "DOMContentLoaded",
	WaitNetworkIdle: "networkIdle",
}

// NavResult is what a navigation reached.
type NavResult struct {
	TabID        int    `json:"tab_id"`
	URL          string `json:"url"`
	Title        string `json:"title"`
	WaitUntil    string `json:"wait_until"`
	ElapsedMS    int64  `json:"elapsed_ms"`
	SameDocument bool   `json:"same_document,omitempty"`
}

// navigate loads url in tab and waits for the lifecycle event wait names,
// bounded by ctx. The tab closing or its debugger detaching ends the wait
// with a structured error for this call only.
func (m *Manager) navigate(ctx context.Context, sid string, tab int, url, wait string) (*NavResult, error) {
	if wait == "" {
		wait = WaitLoad
	}
	name, ok := lifecycleName[wait]
	if !ok {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "wait_until must be load, domcontentloaded or network_idle")
	}
	s := m.cfg.CDP(tab)
	start := time.Now()
	events, cancel := s.Subscribe("Page.lifecycleEvent") // before navigating: nothing is missed
	defer cancel()
	dialogs, stopDialogs := s.Subscribe(page.JavascriptDialogOpening.Method)
	defer stopDialogs()
	res, err := navigateCall(ctx, s, tab, url, dialogs)
	var te *tools.Error
	if errors.As(err, &te) && te.Code == CodeDialogOpen {
		return nil, err
	}
	if err != nil {
		return nil, m.callError(tab, err)
	}
	if res.ErrorText != "" {
		return nil, &tools.Error{Code: CodeNavigationFailed, Retryable: true,
			Message: fmt.Sprintf("Chrome could not load the page in tab %d: %s; check the URL, or that the server is up", tab, res.ErrorText)}
	}
	nav := &NavResult{TabID: tab, WaitUntil: wait, SameDocument: res.LoaderID == ""}
	if !nav.SameDocument {
		if err := m.awaitLifecycle(ctx, sid, tab, events, dialogs, res, name, wait); err != nil {
			return nil, err
		}
	}
	nav.ElapsedMS = time.Since(start).Milliseconds()
	if h, err := cdproto.Call(ctx, s, page.GetNavigationHistory, cdproto.Empty{}); err == nil && int(h.CurrentIndex) < len(h.Entries) {
		if e := h.Entries[h.CurrentIndex]; e != nil {
			nav.URL, nav.Title = e.URL, e.Title
		}
	}
	m.setURL(tab, nav.URL)
	return nav, nil
}

func (m *Manager) awaitLifecycle(ctx context.Context, sid string, tab int, events, dialogs <-chan jsonv2.Value, res page.NavigateResult, name, wait string) error {
	for {
		select {
		case raw, ok := <-dialogs: // an alert while loading: the page waits for it
			if !ok {
				dialogs = nil
				continue
			}
			return dialogError(tab, raw, "it opened while the page loaded")
		case raw, ok := <-events:
			if !ok {
				return m.interrupted(sid, tab, wait)
			}
			var ev page.EventLifecycleEvent
			if jsonv2.Unmarshal(raw, &ev) != nil {
				continue
			}
			if ev.Name == name && ev.FrameID == res.FrameID && ev.LoaderID == res.LoaderID {
				return nil
			}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &tools.Error{Code: tools.CodeTimeout, Retryable: true,
					NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "page", "tab_id": tab}},
					Message:    fmt.Sprintf("tab %d did not reach %s in time; it stays open and may still be loading: observe page shows its state, or retry with a larger timeout_ms", tab, wait)}
			}
			return ctx.Err()
		}
	}
}

// interrupted explains why a tab's events ended during a wait: the tab
// closed, or its debugger was detached.
func (m *Manager) interrupted(sid string, tab int, wait string) error {
	reason := m.detachedReason(tab)
	_, why := m.reg.Lookup(sid, tab)
	switch {
	case reason == "canceled_by_user":
		return &tools.Error{Code: CodeCanceledByUser,
			Message: fmt.Sprintf("the user closed Gasoline's debugging bar on tab %d while waiting for %s; ask the user before acting on this tab again", tab, wait)}
	case why.Kind != WhyOK:
		if why.Shared && why.Reason == ReasonUngrouped {
			e := goneError(tab, why.Reason, true)
			e.Message = fmt.Sprintf("while waiting for %s: %s", wait, e.Message)
			return e
		}
		if why.Reason == ReasonUngrouped {
			return &tools.Error{Code: CodeTabNotOwned, NextAction: listTabs,
				Message: fmt.Sprintf("the user moved tab %d out of the session's tab group while waiting for %s; it is theirs now", tab, wait)}
		}
		return &tools.Error{Code: CodeTabClosed, NextAction: listTabs,
			Message: fmt.Sprintf("tab %d was closed while waiting for %s; observe tabs lists your tabs, interact new_tab opens one", tab, wait)}
	}
	return &tools.Error{Code: "detached", Retryable: true,
		Message: fmt.Sprintf("the debugger was detached from tab %d (%s) while waiting for %s; the next call re-attaches", tab, reason, wait)}
}
