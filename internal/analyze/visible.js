// The page-text predicate of the analyze scripts — the one place that
// decides what a person can see; everything else is dropped from answers
// and counted in H.dropped (hidden_dropped), never shown: hidden text is
// how pages smuggle instructions to agents. Three functions:
//
//   visible(el)        whether a person can see el's box
//   textVisible(node)  whether a person can read a text node
//   textOf(root, max)  the text a person can read inside root, whitespace
//                      collapsed and cut to max
//
// Replacing this file's content (analyze.VisibleJS) with another
// predicate that defines the same three swaps it for every mode.
function visible(el) {
  if (!el || el.nodeType !== 1 || !el.isConnected) return false;
  const cs = getComputedStyle(el);
  if (cs.display === 'contents') return !el.parentElement || visible(el.parentElement);
  if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true })) return false;
  const r = el.getBoundingClientRect();
  if (r.right + scrollX <= 0 || r.bottom + scrollY <= 0) return false; // moved off the page
  if (r.width <= 1 || r.height <= 1) {
    if (cs.overflow !== 'visible' || cs.clip === 'rect(0px, 0px, 0px, 0px)') return false; // clipped away (sr-only)
    for (const c of el.children) if (visible(c)) return true;
    return false;
  }
  return true;
}

const __textOK = new Map(); // element → whether its own text can be read (one call's cache)

function textVisible(node) {
  const el = node.parentElement;
  if (!el) return false;
  let ok = __textOK.get(el);
  if (ok === undefined) {
    ok = visible(el);
    if (ok) {
      const cs = getComputedStyle(el);
      const alpha = /rgba\([^)]*,\s*([\d.]+)\)/.exec(cs.color);
      ok = parseFloat(cs.fontSize) >= 1 && !(alpha && parseFloat(alpha[1]) === 0);
    }
    __textOK.set(el, ok);
  }
  return ok;
}

function textOf(root, max) {
  if (!root) return '';
  const out = [];
  let n = 0;
  const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let t = w.nextNode(); t; t = w.nextNode()) {
    const s = t.data;
    if (SKIP_TEXT.has(t.parentElement?.localName) || !s.trim()) continue;
    if (!textVisible(t)) {
      H.dropped += norm(s).length;
      continue;
    }
    out.push(s);
    n += s.length;
    if (n > max * 4) break;
  }
  return clip(norm(out.join('')), max);
}
