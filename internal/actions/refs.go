package actions

import (
	"context"
	"errors"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Acting on a ref in one round trip: the snapshot's isolated world of the
// element's frame already knows the element by its ref number, so a helper
// runs there on it directly (snapshot.Locate says where, ElementJS finds
// it), instead of resolving the ref to a backend node, that node to a
// handle in the actions' world, and then calling the helper. The helpers
// are installed in the snapshot's world on first use.

// refJS wraps fn (a function expression taking the element and then the
// call's arguments) so that it starts from ref number n; it answers null
// when the element is gone.
func refJS(fn string) string {
	return `function (n, ...args) {
  if (!globalThis.__gasolineActions) throw '{"code":"` + codeNoHelpers + `"}';
  const el = ` + snapshot.ElementJS + `(n);
  return el ? (` + fn + `)(el, ...args) : null;
}`
}

// codeNoHelpers is what refJS throws in a world without the page helpers.
const codeNoHelpers = "no_helpers"

// codeGone is what refJSStrict throws when the ref's element is gone.
const codeGone = "ref_gone"

// refJSStrict is refJS for a step of a sequence: an element that is gone
// is an exception (which ends the sequence), not null.
func refJSStrict(fn string) string {
	return `function (n, ...args) {
  if (!globalThis.__gasolineActions) throw '{"code":"` + codeNoHelpers + `"}';
  const el = ` + snapshot.ElementJS + `(n);
  if (!el) throw '{"code":"` + codeGone + `"}';
  return (` + fn + `)(el, ...args);
}`
}

// locatedWorld is a located ref with its session.
type locatedWorld struct {
	*snapshot.Located
	s cdproto.Session
}

func (a *act) locate(ref string) (*locatedWorld, error) {
	loc, err := a.e.cfg.Snapshots.Locate(a.tab, ref)
	if err != nil {
		return nil, err
	}
	return &locatedWorld{Located: loc, s: a.e.session(a.tab, loc.SessionID)}, nil
}

// value decodes the by-value result of a refJSStrict step: a world that is
// gone or an element that left the page is a stale ref; what the helpers
// threw is the tool error they meant.
func (l *locatedWorld) value(r cdp.StepResult, v any) error {
	res, err := cdp.ResultOf(runtime.CallFunctionOn, r)
	switch {
	case cdp.Gone(err):
		return l.Replaced()
	case err != nil:
		return err
	case res.ExceptionDetails != nil:
		err := thrown(res.ExceptionDetails)
		if te := (*tools.Error)(nil); errors.As(err, &te) && te.Code == codeGone {
			return l.Gone()
		}
		return err
	}
	return decode(res.Result, v)
}

// refCall runs fn on the element behind ref in one round trip and returns
// the element (its handle is the result's wrapper when fn answers {el, …})
// and the result.
func (a *act) refCall(ctx context.Context, ref, fn string, mode resultMode, args ...any) (*elem, *runtime.RemoteObject, error) {
	loc, err := a.locate(ref)
	if err != nil {
		return nil, nil, err
	}
	s := loc.s
	c := jsCall{fn: refJS(fn), context: loc.Context, args: append([]any{loc.N}, args...)}
	o, err := call(ctx, s, c, mode)
	if te := (*tools.Error)(nil); errors.As(err, &te) && te.Code == codeNoHelpers {
		if err = a.install(ctx, s, loc.Context); err == nil {
			o, err = call(ctx, s, c, mode)
		}
	}
	switch {
	case errors.Is(err, errWorldGone):
		return nil, nil, loc.Replaced()
	case err != nil:
		return nil, nil, err
	case o.Subtype == runtime.RemoteObjectSubtypeNull || o.Type == runtime.RemoteObjectTypeUndefined:
		return nil, nil, loc.Gone()
	}
	el := &elem{sid: loc.SessionID, s: s, frame: loc.FrameID, ec: loc.Context, wrap: o.ObjectID, desc: loc.Desc}
	return el, o, nil
}

// install puts the page helpers in a world that lacks them.
func (a *act) install(ctx context.Context, s cdproto.Session, ec runtime.ExecutionContextID) error {
	_, err := call(ctx, s, jsCall{fn: "function () {" + sensitive.JS + ";\n" + pageJS + ";\n" + formsJS + a.setMaskJS() + "}", context: ec}, byValue)
	return err
}
