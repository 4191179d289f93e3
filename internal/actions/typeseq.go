package actions

import (
	"context"
	"errors"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// refReadJS reads a ref's field back after typing (refJS finds it).
const refReadJS = `(el) => ({v: globalThis.__gasolineActions.value(el), u: location.href, t: document.title})`

// typeSequence types text (no line breaks) into a ref's field in one round
// trip over the extension link: focus the field in the snapshot's world
// (reading its value, url and title), Input.insertText, read the value
// back. A field that is gone or refuses the focus ends the sequence before
// anything is typed.
func (a *act) typeSequence(ctx context.Context, args TypeArgs) error {
	for try := 0; ; try++ {
		err := a.typeSequenceOnce(ctx, args)
		var te *tools.Error
		if try == 0 && errors.As(err, &te) && te.Code == codeNoHelpers {
			var loc *locatedWorld
			if loc, err = a.locate(args.Ref); err != nil {
				return err
			}
			if err = a.install(ctx, loc.s, loc.Context); err != nil {
				return err
			}
			continue
		}
		return err
	}
}

// sequencer runs CDP commands in one round trip (*cdp.Session does).
type sequencer interface {
	Sequence(ctx context.Context, steps ...cdp.Step) ([]cdp.StepResult, error)
}

func (a *act) typeSequenceOnce(ctx context.Context, args TypeArgs) error {
	loc, err := a.locate(args.Ref)
	if err != nil {
		return err
	}
	el := &elem{sid: loc.SessionID, s: loc.s, frame: loc.FrameID, ec: loc.Context, desc: loc.Desc}
	seq, ok := loc.s.(sequencer)
	if main, _ := a.isMainWorld(ctx, el); !ok || !main {
		// A session that cannot sequence, or a field in a frame: url and
		// title before the typing must then be read apart, first.
		return a.refFocusAndType(ctx, args)
	}
	call := func(fn string, args ...any) cdp.Step {
		yes := true
		p := runtime.CallFunctionOnParams{FunctionDeclaration: refJSStrict(fn), ExecutionContextID: loc.Context,
			ReturnByValue: &yes, ObjectGroup: objectGroup}
		for _, v := range append([]any{loc.N}, args...) {
			b, _ := jsonv2.Marshal(v)
			p.Arguments = append(p.Arguments, &runtime.CallArgument{Value: jsonv2.Value(b)})
		}
		return cdp.Step{Method: runtime.CallFunctionOn.Method, Params: p, StopOnException: true}
	}
	var res []cdp.StepResult
	err = a.blocking(ctx, func(ctx context.Context) error {
		var err error
		res, err = seq.Sequence(ctx,
			call(refFocusJS, args.Clear),
			cdp.NewStep(input.InsertText, input.InsertTextParams{Text: args.Text}),
			call(refReadJS))
		return err
	})
	if errors.Is(err, errDialogOpened) { // the page reacted to the typing with a dialog
		return a.done(err, loc.Desc, "typed into "+loc.Desc)
	}
	if err != nil {
		return err
	}
	var before typing
	if err := loc.value(res[0], &before); err != nil {
		return err
	}
	a.sawBefore(ctx, el, before.U, before.T)
	a.settle()
	el.desc = cmpOr(before.Desc, el.desc)
	if _, err := cdp.ResultOf(input.InsertText, res[1]); err != nil {
		return a.done(err, el.desc, "typed into "+el.desc)
	}
	var after typed
	if err := loc.value(res[2], &after); err != nil {
		return err
	}
	return a.checkTyped(ctx, el, before, after, args.Text, args.Clear)
}
