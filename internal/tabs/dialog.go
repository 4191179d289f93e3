package tabs

import (
	"context"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// CodeDialogOpen is a JavaScript dialog blocking the page (the actions
// engine's code of the same name).
const CodeDialogOpen = "dialog_open"

// A dialog opening during a navigation ends it at once: Page.navigate
// does not answer while a beforeunload dialog asks the user whether to
// leave, and a page that alerts while loading never reaches load. The
// call answers dialog_open naming the dialog; handle_dialog clears it
// (accepting a beforeunload lets the navigation go on).

// navigateCall sends Page.navigate, returning early with dialog_open
// when a dialog opens before Chrome answers. The command is left to
// finish in the browser (the dialog's answer decides it).
func navigateCall(ctx context.Context, s cdproto.Session, tab int, url string, dialogs <-chan jsonv2.Value) (page.NavigateResult, error) {
	type out struct {
		res page.NavigateResult
		err error
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan out, 1)
	go func() {
		r, err := cdproto.Call(cctx, s, page.Navigate, page.NavigateParams{URL: url})
		done <- out{r, err}
	}()
	defer func() { cancel(); <-done }() // the call ends with its context
	for {
		select {
		case o := <-done:
			done <- o // for the deferred wait
			return o.res, o.err
		case raw, ok := <-dialogs:
			if !ok {
				dialogs = nil // the tab went away: the call ends on its own
				continue
			}
			return page.NavigateResult{}, dialogError(tab, raw, "it opened while navigating")
		}
	}
}

// dialogError is dialog_open for the dialog a JavascriptDialogOpening
// event describes, during what the call was doing.
func dialogError(tab int, raw jsonv2.Value, doing string) *tools.Error {
	var ev page.EventJavascriptDialogOpening
	_ = jsonv2.Unmarshal(raw, &ev)
	return DialogOpen(tab, string(ev.Type), ev.Message, doing)
}

// DialogOpen is the dialog_open error of a call that a JavaScript dialog
// interrupted: its type and text, and how to clear it.
func DialogOpen(tab int, typ, message, doing string) *tools.Error {
	what := fmt.Sprintf("a %s dialog", typ)
	if message != "" {
		what += fmt.Sprintf(" (%q)", clipText(message, 200))
	}
	advice := "answer it with handle_dialog (accept: true or false)"
	if typ == string(page.DialogTypeBeforeunload) {
		what += ", which asks whether to leave the page (it may have unsaved changes)"
		advice = "handle_dialog accept:true leaves the page and lets the navigation go on, accept:false stays"
	}
	return &tools.Error{Code: CodeDialogOpen,
		NextAction: &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "handle_dialog", "accept": true, "tab_id": tab}},
		Message:    fmt.Sprintf("tab %d shows %s (%s); %s", tab, what, doing, advice)}
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
