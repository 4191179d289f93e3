package actions

import (
	"context"
	"errors"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// DialogArgs are handle_dialog's arguments.
type DialogArgs struct {
	Accept     bool
	PromptText string // the answer to a prompt() when accepting
}

// HandleDialog accepts or dismisses the JavaScript dialog (alert, confirm,
// prompt, beforeunload) open in the tab. With no dialog open it fails with
// no_dialog.
func (e *Engine) HandleDialog(ctx context.Context, tab int, args DialogArgs) (*Result, error) {
	return e.run(ctx, tab, "handle_dialog", runOpts{dialogOK: true}, func(ctx context.Context, a *act) error {
		d, _ := a.openDialog()
		_, err := cdproto.Call(ctx, a.s, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: args.Accept, PromptText: args.PromptText})
		a.t.dialog = DialogInfo{}
		if err != nil {
			if noDialog(err) {
				return errorf(CodeNoDialog, "tab %d shows no JavaScript dialog", a.tab)
			}
			return err
		}
		verb := "dismissed"
		if args.Accept {
			verb = "accepted"
		}
		what := "the dialog"
		if d.Type != "" {
			what = fmt.Sprintf("the %s dialog %q", d.Type, clip(d.Message, 100))
		}
		if args.Accept && args.PromptText != "" {
			what += fmt.Sprintf(" with %q", clip(args.PromptText, 60))
		}
		a.res.Value = map[string]any{"type": d.Type, "message": d.Message, "accepted": args.Accept}
		a.res.Message = verb + " " + what
		return nil
	})
}

// dialogBlocked turns a dialog that opened during a navigation (reload,
// back, forward) into dialog_open: the page waits for its answer, so the
// call ends at once rather than wait out its timeout. The wording is the
// tab manager's (tabs.DialogOpen) for navigate.
func (a *act) dialogBlocked(err error, doing string) error {
	if !errors.Is(err, errDialogOpened) {
		return err
	}
	d := a.w.lastDialog()
	what := fmt.Sprintf("a %s dialog", d.Type)
	if d.Message != "" {
		what += fmt.Sprintf(" (%q)", d.Message)
	}
	advice := "answer it with handle_dialog (accept: true or false)"
	if d.Type == string(page.DialogTypeBeforeunload) {
		what += ", which asks whether to leave the page (it may have unsaved changes)"
		advice = "handle_dialog accept:true leaves the page and lets the navigation go on, accept:false stays"
	}
	return &tools.Error{Code: CodeDialogOpen, NextAction: nextDialog,
		Message: fmt.Sprintf("tab %d shows %s (it opened while %s); %s", a.tab, what, doing, advice)}
}
