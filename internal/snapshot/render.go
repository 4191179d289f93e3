package snapshot

import (
	"context"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// A page that renders from script (a single-page app, a page that shows
// its body once its scripts ran) has no content for a moment after it
// loads. A full snapshot of such a page waits for its first rendered
// content — event-driven: a MutationObserver in the page resolves the
// wait as soon as the body draws text or a control, bounded by
// RenderWait — and when none came, the answer says the page has not
// rendered content yet instead of showing an empty tree.

// RenderWait bounds the wait for a page's first rendered content.
const RenderWait = 750 * time.Millisecond

// renderedJS resolves true once the document's body draws something a
// person sees (text, or a control or image with a box), false at the
// bound. Mutations drive it; no polling.
const renderedJS = `function (bound) {
  const MEDIA = 'img,svg,canvas,video,input,button,select,textarea,iframe,object,embed';
  const has = () => {
    const b = document.body;
    if (!b) return false;
    if ((b.innerText || '').trim() !== '') return true;
    for (const el of b.querySelectorAll(MEDIA)) if (el.getClientRects().length) return true;
    return false;
  };
  if (has()) return true;
  return new Promise((resolve) => {
    let timer = 0;
    const mo = new MutationObserver(() => { if (has()) done(true); });
    const done = (v) => { mo.disconnect(); clearTimeout(timer); resolve(v); };
    mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    timer = setTimeout(() => done(has()), bound);
  });
}`

// awaitRendered waits, bounded, for the world's document to render
// content; it reports whether it has.
func awaitRendered(ctx context.Context, s cdproto.Session, ec runtime.ExecutionContextID, bound time.Duration) (bool, error) {
	yes := true
	arg, _ := jsonv2.Marshal(bound.Milliseconds())
	res, err := cdproto.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: renderedJS, ExecutionContextID: ec, ReturnByValue: &yes, AwaitPromise: &yes,
		Arguments: []*runtime.CallArgument{{Value: jsonv2.Value(arg)}},
	})
	if err != nil {
		if contextGone(err) {
			return false, errContextGone
		}
		return false, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return true, nil // the page would not say: take the snapshot as it is
	}
	var ok bool
	_ = jsonv2.Unmarshal(res.Result.Value, &ok)
	return ok, nil
}

// rendered waits for the main frame's first content before a full
// snapshot (see RenderWait); a page that cannot be asked counts as
// rendered.
// It returns the world as resolved (its frame known).
func (r *walkRun) rendered(ctx context.Context, w world) (bool, world) {
	ec, got, err := r.s.worldContext(ctx, r.tab, r.t, w)
	if err != nil {
		return true, w
	}
	ok, err := awaitRendered(ctx, r.s.cfg.Session(r.tab, got.session), ec, RenderWait)
	return err != nil || ok, got
}
