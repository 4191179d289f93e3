package actions

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/runtime"
)

// clickSettle bounds the wait for what a click set moving.
const clickSettle = 600 * time.Millisecond

// settleJS resolves once no finite CSS transition or animation runs in
// the document (a dialog fading in, a menu sliding open: Bootstrap shows a
// modal when its backdrop's fade ends, so it waits out a chain), or at the
// bound. Infinite ones (spinners) are not waited for. Event-driven: the
// animations' finished promises and message-channel hops, no timers but
// the bound. A click that set nothing moving (its handlers ran before this
// call, and getAnimations sees what they started) answers at once: a hop
// costs a background tab ~25 ms, and two of them quintupled every click
// (BenchmarkE2EActionClick 12 -> 67 ms p50); the hops that catch a chain
// run only once something moved. It answers the main frame's url and
// title once settled ({s: settled, u, t}): the after probe, read in the
// same round trip. Unless the tab is held painting (painting), a page
// where something moves answers {m: true} at once: an agent's background
// tab draws about once a second, so nothing it set moving would end
// before the bound (settleAnimations holds it painting and asks again).
// Whether a tab draws cannot be read from the page (a background tab of
// headless Chrome reads visibilityState "visible"), so every tab is held:
// a visible one loses two round trips against an animation's length.
const settleJS = `async function (bound, painting) {
  const end = performance.now() + bound;
  const hop = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
  const running = () => document.getAnimations().filter((x) => x.playState === 'running' && Number.isFinite(x.effect?.getComputedTiming().endTime));
  const state = (s) => ({ s, u: location.href, t: document.title });
  if (!running().length) return state(true);
  if (!painting) return { m: true };
  for (let quiet = 0; quiet < 2; ) {
    const list = running();
    if (!list.length) { quiet++; await hop(); continue; }
    quiet = 0;
    const left = end - performance.now();
    if (left <= 0) return state(false);
    let timer = 0;
    await Promise.race([Promise.all(list.map((x) => x.finished.catch(() => {}))), new Promise((r) => { timer = setTimeout(r, left); })]);
    clearTimeout(timer);
  }
  return state(true);
}`

// settleState is settleJS's answer: the after probe, or that something
// moves in a page not held painting.
type settleState struct {
	pageState
	Moving bool `json:"m"`
}

// settleAnimations waits (bounded by clickSettle) for the transitions a
// click started to end, so that the answer and the next snapshot see the
// dialog or menu it opened as a person does once it stops moving, and
// keeps the url and title it read then for the answer (a.settled). An
// agent's background tab is held painting (internal/hold) while it waits:
// Chrome draws a hidden tab about once a second, so its transitions do
// not end and the click waited out the whole bound (a Bootstrap-style
// dialog: 640 ms, against 460 held, every transition done). A page that
// cannot be asked is not waited for; a JavaScript dialog that opens
// meanwhile ends the wait (errDialogOpened, reported as the click's).
func (a *act) settleAnimations(ctx context.Context) error {
	ec, _, err := a.world(ctx, "", "")
	if err != nil {
		return nil
	}
	end := time.Now().Add(clickSettle)
	st, err := a.settleWait(ctx, ec, clickSettle, false)
	if err == nil && st.Moving {
		st, err = a.settlePainting(ctx, ec, end)
	}
	if errors.Is(err, errDialogOpened) {
		return err
	}
	if err == nil && st.URL != "" {
		a.settled = &st.pageState
	}
	return nil
}

// settlePainting holds the tab painting (bounded by end) while what
// moves settles. A tab it cannot hold in time (a capture holds it longer)
// is waited for as it is.
func (a *act) settlePainting(ctx context.Context, ec runtime.ExecutionContextID, end time.Time) (settleState, error) {
	hctx, cancel := context.WithDeadline(ctx, end)
	a.painting(hctx)
	cancel()
	return a.settleWait(ctx, ec, time.Until(end), true)
}

// settleWait runs settleJS, ended by a JavaScript dialog.
func (a *act) settleWait(ctx context.Context, ec runtime.ExecutionContextID, bound time.Duration, painting bool) (settleState, error) {
	var st settleState
	err := a.blocking(ctx, func(ctx context.Context) error {
		return callValue(ctx, a.s, jsCall{fn: settleJS, context: ec, args: []any{max(bound, 0).Milliseconds(), painting}, await: true}, &st)
	})
	return st, err
}
