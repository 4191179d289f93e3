// The analyze scripts' three page-text predicates, over Gasoline's one
// in-page "can a person see this" test (internal/visible, installed just
// before this file): everything a person cannot see is dropped from
// answers and counted in H.dropped (hidden_dropped, in characters) and by
// reason (hidden_reasons), never shown — hidden text is how pages smuggle
// instructions to agents.
//
//   visible(el)        whether a person can see el's box
//   textShown(node)    the part of a text node a person can read ('' when
//                      none: counted)
//   textOf(root, max)  the text a person can read inside root, whitespace
//                      collapsed and cut to max; a sensitive element
//                      (secretField, page.js) reads ••••
const __V = globalThis.__gasolineVisible;
__V.begin();

function visible(el) {
  if (!el || el.nodeType !== 1 || !el.isConnected || !el.checkVisibility()) return false;
  const cs = getComputedStyle(el);
  const p = __V.parentOf(el);
  const ctx = __V.enter(el, cs, p ? __V.context(p) : __V.root(el.ownerDocument), cs.display);
  return !__V.boxHidden(el, cs, ctx);
}

function textShown(node) {
  const s = norm(node.data);
  const el = node.parentElement;
  if (!s) return '';
  if (!el || !el.checkVisibility()) {
    H.dropped += s.length;
    return '';
  }
  const why = __V.textHidden(node, getComputedStyle(el), __V.context(el));
  if (!why) return s;
  const k = why.why || why;
  H.why[k] = (H.why[k] || 0) + 1;
  if (typeof why === 'string') {
    H.dropped += s.length;
    return '';
  }
  H.dropped += s.length - why.keep.length;
  return why.keep;
}

function textOf(root, max) {
  if (!root) return '';
  if (secretField(root)) return '••••'; // internal/sensitive
  const r = __V.text(root, max * 4, secretSelf);
  H.dropped += r.dropped;
  for (const [k, n] of Object.entries(r.why)) H.why[k] = (H.why[k] || 0) + n;
  return clip(norm(r.text), max);
}
