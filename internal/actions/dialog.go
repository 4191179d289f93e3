package actions

import (
	"context"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
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
			if cdp.NoDialog(err) {
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
