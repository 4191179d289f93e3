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

// Typing in one round trip over the extension link (cdp.sequence): focus
// the field and read its value, url and title; Input.insertText; read the
// value back. A field that is gone, missing or refuses text ends the
// sequence before anything is typed. Used for text without line breaks
// into a field of the main frame (elsewhere url and title before the
// typing must be read apart, first); other typing goes step by step.

// sequencer runs CDP commands in one round trip (*cdp.Session does).
type sequencer interface {
	Sequence(ctx context.Context, steps ...cdp.Step) ([]cdp.StepResult, error)
}

// refReadJS reads a ref's field back after typing (refJS finds it).
const refReadJS = `(el) => ({v: globalThis.__gasolineActions.value(el), u: location.href, t: document.title})`

// findFocusKeepJS is findFocusJS for a sequence: the field is kept in the
// world (the page cannot see it) for keptReadJS to read back.
const findFocusKeepJS = `function (q, o) {
  const G = globalThis.__gasolineActions;
  const el = G.find(q, true);
  globalThis.__gasolineTyped = el;
  return Object.assign({u: location.href, t: document.title}, G.focusForTyping(el, o));
}`

const keptReadJS = `function () {
  const el = globalThis.__gasolineTyped;
  globalThis.__gasolineTyped = null;
  return {v: globalThis.__gasolineActions.value(el), u: location.href, t: document.title};
}`

// typeStep is one by-value Runtime.callFunctionOn of a typing sequence.
func typeStep(ec runtime.ExecutionContextID, fn string, args ...any) cdp.Step {
	yes := true
	p := runtime.CallFunctionOnParams{FunctionDeclaration: fn, ExecutionContextID: ec, ReturnByValue: &yes, ObjectGroup: objectGroup}
	for _, v := range args {
		b, _ := jsonv2.Marshal(v)
		p.Arguments = append(p.Arguments, &runtime.CallArgument{Value: jsonv2.Value(b)})
	}
	return cdp.Step{Method: runtime.CallFunctionOn.Method, Params: p, StopOnException: true}
}

// typeSequence types into a ref's field (a ref in the snapshot's world).
func (a *act) typeSequence(ctx context.Context, args TypeArgs) error {
	for try := 0; ; try++ {
		loc, err := a.locate(args.Ref)
		if err != nil {
			return err
		}
		el := &elem{sid: loc.SessionID, s: loc.s, frame: loc.FrameID, ec: loc.Context, desc: loc.Desc}
		seq, ok := a.sequencer(ctx, el)
		if !ok {
			return a.refFocusAndType(ctx, args)
		}
		err = a.typeSteps(ctx, seq, el, args, loc.value,
			typeStep(loc.Context, refJSStrict(refFocusJS), loc.N, a.typingOpts(args.Clear)),
			typeStep(loc.Context, refJSStrict(refReadJS), loc.N))
		var te *tools.Error
		if try == 0 && errors.As(err, &te) && te.Code == codeNoHelpers {
			if err = a.install(ctx, loc.s, loc.Context); err != nil {
				return err
			}
			continue
		}
		return err
	}
}

// typeSelectorSequence types into the field a selector names in the main
// frame (found in the actions' world); it reports false when it cannot.
func (a *act) typeSelectorSequence(ctx context.Context, args TypeArgs, q query) (bool, error) {
	for try := 0; ; try++ {
		ec, frame, err := a.world(ctx, "", "")
		if err != nil {
			return true, err
		}
		el := &elem{s: a.s, frame: frame, ec: ec}
		seq, ok := a.sequencer(ctx, el)
		if !ok {
			return false, nil
		}
		err = a.typeSteps(ctx, seq, el, args, byValueOf,
			typeStep(ec, findFocusKeepJS, q, a.typingOpts(args.Clear)), typeStep(ec, keptReadJS))
		if errors.Is(err, errWorldGone) && try == 0 {
			a.forgetAll()
			continue
		}
		return true, err
	}
}

// sequencer reports whether el's field can be typed in one sequence: its
// session runs them and it is in the main frame.
func (a *act) sequencer(ctx context.Context, el *elem) (sequencer, bool) {
	seq, ok := el.s.(sequencer)
	main, _ := a.isMainWorld(ctx, el)
	return seq, ok && main
}

// typeSteps runs focus, Input.insertText and read as one sequence and
// reports the typing; value decodes a focus or read step.
func (a *act) typeSteps(ctx context.Context, seq sequencer, el *elem, args TypeArgs, value func(cdp.StepResult, any) error, focus, read cdp.Step) error {
	var res []cdp.StepResult
	err := a.blocking(ctx, func(ctx context.Context) error {
		var err error
		res, err = seq.Sequence(ctx, focus, cdp.NewStep(input.InsertText, input.InsertTextParams{Text: args.Text}), read)
		return err
	})
	if errors.Is(err, errDialogOpened) { // the page answered the typing with a dialog
		return a.done(err, el.desc, "typed into "+cmpOr(el.desc, args.Target.String()))
	}
	if err != nil {
		return err
	}
	var before typing
	if err := value(res[0], &before); err != nil {
		return err
	}
	a.sawBefore(ctx, el, before.U, before.T)
	a.settle()
	el.desc = cmpOr(before.Desc, el.desc)
	if _, err := cdp.ResultOf(input.InsertText, res[1]); err != nil {
		return a.done(err, el.desc, "typed into "+el.desc)
	}
	var after typed
	if err := value(res[2], &after); err != nil {
		return err
	}
	return a.checkTyped(ctx, el, before, after, args.Text, args.Clear)
}

// byValueOf decodes a by-value callFunctionOn step in the actions' world.
func byValueOf(r cdp.StepResult, v any) error {
	res, err := cdp.ResultOf(runtime.CallFunctionOn, r)
	switch {
	case cdp.Gone(err):
		return errWorldGone
	case err != nil:
		return err
	case res.ExceptionDetails != nil:
		return thrown(res.ExceptionDetails)
	}
	return decode(res.Result, v)
}
