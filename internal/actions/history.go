package actions

import (
	"context"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// HistoryArgs are back's, forward's and refresh's arguments.
type HistoryArgs struct {
	WaitUntil string // load (default) or domcontentloaded
}

// Back goes one entry back in the tab's history and waits for the page
// (for a back/forward-cache restore or a same-document entry, for the
// navigation itself). Provided for a dispatcher without a tab manager
// version of it; it runs in the tab's action queue.
func (e *Engine) Back(ctx context.Context, tab int, args HistoryArgs) (*Result, error) {
	return e.history(ctx, tab, "back", -1, args)
}

// Forward goes one entry forward in the tab's history (see Back).
func (e *Engine) Forward(ctx context.Context, tab int, args HistoryArgs) (*Result, error) {
	return e.history(ctx, tab, "forward", 1, args)
}

// Refresh reloads the page and waits for it (see Back).
func (e *Engine) Refresh(ctx context.Context, tab int, args HistoryArgs) (*Result, error) {
	return e.history(ctx, tab, "refresh", 0, args)
}

func (e *Engine) history(ctx context.Context, tab int, action string, delta int, args HistoryArgs) (*Result, error) {
	loadEvent := page.LoadEventFired.Method
	switch args.WaitUntil {
	case "", "load":
	case "domcontentloaded":
		loadEvent = page.DomContentEventFired.Method
	default:
		return nil, invalid("wait_until must be load or domcontentloaded here, got %q", args.WaitUntil)
	}
	return e.run(ctx, tab, action, runOpts{probe: true}, func(ctx context.Context, a *act) error {
		loaded, stopL := a.s.Subscribe(loadEvent)
		defer stopL()
		navs, stopN := a.s.Subscribe(page.FrameNavigated.Method)
		defer stopN()
		same, stopS := a.s.Subscribe(page.NavigatedWithinDocument.Method)
		defer stopS()
		a.settle()
		doing := "going " + action
		if delta == 0 {
			doing = "reloading"
			if err := a.blocking(ctx, func(ctx context.Context) error {
				_, err := cdproto.Call(ctx, a.s, page.Reload, page.ReloadParams{})
				return err
			}); err != nil {
				return a.dialogBlocked(err, doing)
			}
		} else {
			h, err := cdproto.Call(ctx, a.s, page.GetNavigationHistory, cdproto.Empty{})
			if err != nil {
				return err
			}
			i := int(h.CurrentIndex) + delta
			if i < 0 || i >= len(h.Entries) {
				return errorf(tools.CodeInvalidArgument, "tab %d has no page to go %s to", a.tab, action)
			}
			if err := a.blocking(ctx, func(ctx context.Context) error {
				_, err := cdproto.Call(ctx, a.s, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID})
				return err
			}); err != nil {
				return a.dialogBlocked(err, doing)
			}
		}
		a.forgetWorld("", "")
		dialogs := a.w.dialog()
		for {
			select {
			case raw, ok := <-dialogs: // an alert while loading: the page waits for it
				if !ok {
					dialogs = nil
					continue
				}
				a.w.event(page.JavascriptDialogOpening.Method, raw)
				return a.dialogBlocked(errDialogOpened, doing)
			case _, ok := <-loaded:
				if !ok {
					return errorf("tab_closed", "tab %d went away while loading", a.tab)
				}
				a.res.Message = fmt.Sprintf("went %s", action)
				if delta == 0 {
					a.res.Message = "reloaded the page"
				}
				return nil
			case raw, ok := <-navs:
				if !ok {
					return errorf("tab_closed", "tab %d went away while loading", a.tab)
				}
				var ev page.EventFrameNavigated
				if jsonv2.Unmarshal(raw, &ev) == nil && ev.Frame != nil && ev.Frame.ParentID == "" && ev.Type == page.NavigationTypeBackForwardCacheRestore {
					a.res.Message = fmt.Sprintf("went %s (restored from the back/forward cache)", action)
					return nil
				}
			case _, ok := <-same:
				if ok && delta != 0 {
					a.res.Message = fmt.Sprintf("went %s within the page", action)
					return nil
				}
			case <-ctx.Done():
				return &tools.Error{Code: tools.CodeTimeout, Retryable: true,
					Message: fmt.Sprintf("tab %d did not finish loading in time; it may still be loading: observe page shows its state", a.tab)}
			}
		}
	})
}
