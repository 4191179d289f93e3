package snapshot

import "time"

// A page that renders from script (a single-page app, a page that shows
// its body once its scripts ran) has no content for a moment after it
// loads. A full snapshot of such a page waits for its first rendered
// content — event-driven: a MutationObserver in the page resolves the
// wait as soon as the body draws text or a control, bounded by
// RenderWait — and when none came, the answer says the page has not
// rendered content yet instead of showing an empty tree. The wait runs in
// the walker's own call (walkJS), so a page that has drawn costs no
// round trip more; and a walk that showed the body's text answers the
// question itself, so such a page is not asked it at all.

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
