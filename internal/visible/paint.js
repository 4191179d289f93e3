// What paints over what (part of internal/visible, inside visible.go's
// wrapper). Text is covered when something opaque is painted above it in
// the browser's paint order (CSS 2.1 appendix E: stacking contexts by
// z-index, then block backgrounds, floats, inline content, positioned
// descendants in tree order): another element, a positioned ::before or
// ::after, an inset or spread box-shadow, an image, or a backdrop-filter
// that blurs it away. Only elements painted in a layer above the normal
// flow (positioned, transformed or filtered, and what they hold) can
// cover text, so one pass over the document lists them (covers), and
// paint order is worked out only for a cover that overlaps text.

const COVER_ALPHA = 0.9; // a cover this opaque hides what is under it
const BLUR_HIDES = 0.25; // a blur radius of a quarter of the font size leaves nothing legible

// features says which rarely used properties the document's style sheets
// and inline styles use at all, so a walk reads them only where they can
// be set. Unreadable (cross-origin) sheets turn everything on. hs: the
// document's shadow hosts (hosts), when the caller listed them already.
// It also lists where a position other than static can come from (pos:
// per tree, the selectors of the rules that declare one and the elements
// whose style attribute may), for covers; posAll when that cannot be told
// from selectors (a declaration in a nested rule, @scope, keyframes, or a
// selector reaching across a shadow boundary or naming :scope).
const FEATURE_RE = /filter|mask|mix-blend|backface|box-shadow|first-line|transform|translate|rotate|scale|perspective/gi;
const POS_RE = /(^|[;{\s])(position|all)\s*:/i; // a declaration that may set position (all: sets it too)
const ALL_RE = /(^|[;{\s])all\s*:/i;
const POS_GROUPS = new Set(['CSSMediaRule', 'CSSSupportsRule', 'CSSLayerBlockRule', 'CSSContainerRule', 'CSSStartingStyleRule']);
function features(d, hs = hosts(d)) {
  const f = { filter: false, mask: false, 'mix-blend': false, backface: false, 'box-shadow': false, 'first-line': false, transform: false, indiv: false, pseudo: [], pseudoAll: false, pos: [], posAll: false };
  let tree = null; // the tree being scanned: {root, sels, els}
  const all = () => {
    for (const k of Object.keys(f)) if (typeof f[k] === 'boolean') f[k] = true;
  };
  const word = (t) => {
    if (/(^|[;{\s])(translate|rotate|scale)\s*:/.test(t)) f.indiv = true;
    for (const m of t.matchAll(FEATURE_RE)) {
      const w = m[0].toLowerCase();
      f[w === 'translate' || w === 'rotate' || w === 'scale' || w === 'perspective' ? 'transform' : w] = true;
    }
  };
  const rules = (list, grouped) => {
    for (const r of list) {
      const t = r.cssText;
      word(t);
      const sel = r.selectorText;
      if (r.style && ((r.style.position && r.style.position !== 'static') || ALL_RE.test(r.style.cssText))) {
        if (grouped || !sel || /:host|::slotted|::part|:scope|&/.test(sel)) f.posAll = true;
        else tree.sels.push(sel);
      }
      if (sel && r.cssRules?.length && POS_RE.test(t)) f.posAll = true; // nested rules
      if (sel && /:(before|after)\b/i.test(sel) && /absolute|fixed/.test(t)) {
        for (const part of sel.split(',')) {
          if (!/:(before|after)\b/i.test(part)) continue;
          if (/[&]|:host|::slotted|::part/.test(part)) f.pseudoAll = true;
          else f.pseudo.push(part.replace(/::?(before|after)\b/gi, '').trim() || '*');
        }
      }
      if (r.cssRules && !sel) rules(r.cssRules, grouped || !POS_GROUPS.has(r.constructor.name)); // @media, @supports, @layer, @container
      else if (r.cssRules?.length) f.pseudoAll = f.pseudoAll || /:(before|after)/i.test(t); // nested rules
      if (r.styleSheet) sheet(r.styleSheet); // @import
    }
  };
  const sheet = (s) => {
    let list;
    try {
      list = s.cssRules;
    } catch {
      all();
      f.pseudoAll = true;
      return;
    }
    if (list) rules(list);
  };
  const scope = (root) => {
    tree = { root, sels: [], els: [] };
    f.pos.push(tree);
    for (const s of root.styleSheets || []) sheet(s);
    for (const s of root.adoptedStyleSheets || []) sheet(s);
    for (const e of root.querySelectorAll('[style]')) {
      const t = e.getAttribute('style') || '';
      word(t);
      const st = e.style;
      if ((st && st.position && st.position !== 'static') || ALL_RE.test(st?.cssText || '')) tree.els.push(e);
    }
    if (root.querySelector('[filter], [mask], [transform]')) f.filter = f.mask = f.transform = true;
  };
  scope(d);
  for (const h of hs) scope(h.shadowRoot);
  return f;
}

// hosts lists the elements of a document (and of its shadow trees) that
// have an open shadow root.
function hosts(root, out = []) {
  for (const e of root.querySelectorAll('*')) {
    if (e.shadowRoot) {
      out.push(e);
      hosts(e.shadowRoot, out);
    }
  }
  return out;
}

// positioned lists the elements of a document (and its shadow trees) whose
// position may be other than static: those the position rules' selectors
// match, those whose style attribute may set it, those the browser's own
// style sheet positions (dialogs, popovers, fullscreen) and the targets
// of animations. null when that cannot be told (features: posAll; a
// selector the finder refuses).
const UA_POSITIONED = ['dialog', '[popover]', ':modal', ':popover-open', ':fullscreen'];
function positioned(d, feat) {
  if (feat.posAll) return null;
  const out = new Set();
  const add = (list) => {
    for (const e of list) out.add(e);
  };
  for (const t of feat.pos) {
    try {
      if (t.sels.length) add(t.root.querySelectorAll(t.sels.join(',')));
    } catch {
      return null;
    }
    add(t.els);
    for (const u of UA_POSITIONED) {
      try {
        add(t.root.querySelectorAll(u));
      } catch {} // a pseudo-class this browser does not know positions nothing
    }
    try {
      for (const a of t.root.getAnimations()) if (a.effect?.target) out.add(a.effect.target);
    } catch {
      return null;
    }
  }
  return out;
}

// covers lists what in a document may paint over text: {el, pseudo, r,
// alpha, blur} (r: the box it paints, viewport coordinates). Computed once
// per walk, the first time a text run needs it. Only what is painted in a
// layer (positioned, or transformed or filtered where the style sheets
// use those at all) can cover: when the layers' roots can be told from the
// style sheets (positioned: no transforms, filters or positioned
// pseudo-elements in them), the walk reads the style of those and what
// they hold only — an element whose position is static paints in no
// layer, and one under display: none paints no box (its rect is empty) —
// and the list is the same as the whole walk's: on the ~3,000-element page
// ~1 element styled instead of ~3,000 (5-8 ms of every first text read of
// a script).
function covers(f, d) {
  if (f.covers) return f.covers;
  const list = [];
  const feat = f.feat;
  let pseudoEls = null;
  if (!feat.pseudoAll && feat.pseudo.length) {
    try {
      pseudoEls = new Set(d.querySelectorAll(feat.pseudo.join(',')));
    } catch {
      pseudoEls = null;
      feat.pseudoAll = true;
    }
  }
  const roots = feat.transform || feat.indiv || feat.filter || feat.pseudoAll || pseudoEls ? null : positioned(d, feat);
  const visit = (el, layer) => {
    if (roots && !layer && !roots.has(el)) {
      if (el.shadowRoot) for (let k = el.shadowRoot.firstElementChild; k; k = k.nextElementSibling) visit(k, false);
      for (let k = el.firstElementChild; k; k = k.nextElementSibling) visit(k, false);
      return;
    }
    const cs = getComputedStyle(el);
    if (cs.display === 'none') return;
    if (!layer) layer = cs.position !== 'static' || (feat.transform && cs.transform !== 'none') || (feat.indiv && (cs.translate !== 'none' || cs.scale !== 'none')) || (feat.filter && cs.filter !== 'none');
    if (layer && cs.display !== 'contents' && cs.visibility === 'visible') {
      const p = paintOf(el, cs, feat);
      if (p) {
        const r = el.getBoundingClientRect();
        if (r.width >= 1 && r.height >= 1) list.push({ el, pseudo: '', r: grow(fromRect(r), p.spread), ...p });
      }
    }
    if (feat.pseudoAll || pseudoEls?.has(el)) {
      for (const which of ['::before', '::after']) {
        const ps = getComputedStyle(el, which);
        if (ps.content === 'none' || ps.content === 'normal' || ps.display === 'none' || ps.visibility !== 'visible') continue;
        if (ps.position !== 'absolute' && ps.position !== 'fixed') continue;
        const p = paintOf(null, ps, feat);
        const r = p && pseudoBox(el, cs, ps);
        if (r) list.push({ el, pseudo: which, r: grow(r, p.spread), ps, ...p });
      }
    }
    if (el.shadowRoot) for (let k = el.shadowRoot.firstElementChild; k; k = k.nextElementSibling) visit(k, layer);
    for (let k = el.firstElementChild; k; k = k.nextElementSibling) visit(k, layer);
  };
  if (d.documentElement) visit(d.documentElement, false);
  f.covers = list;
  return list;
}

const grow = (b, s) => (s ? box(b.l - s, b.t - s, b.r + s, b.b + s) : b);

// paintOf says what an element (or a pseudo-element: el null) paints over
// its whole box: {alpha: how opaque, blur: a backdrop blur, spread: how
// far an outer shadow reaches}, or null when it paints nothing that could
// hide text.
function paintOf(el, cs, feat) {
  let alpha = 0, blur = 0, spread = 0;
  const bg = rgba(cs.backgroundColor);
  if (bg) alpha = bg[3];
  const img = cs.backgroundImage;
  if (img !== 'none') alpha = Math.max(alpha, imageAlpha(img));
  if (el?.localName === 'img') alpha = Math.max(alpha, imgAlpha(el)); // frames, canvases and videos may be transparent
  if (feat['box-shadow']) {
    const sh = cs.boxShadow;
    if (sh !== 'none') {
      for (const s of shadows(sh)) {
        const w = el ? el.offsetWidth : parseFloat(cs.width), h = el ? el.offsetHeight : parseFloat(cs.height);
        if (s.inset && s.spread * 2 >= Math.min(w, h)) alpha = Math.max(alpha, s.c[3]);
        if (!s.inset && s.spread > 0 && s.c[3] >= COVER_ALPHA) spread = Math.max(spread, s.spread - Math.max(Math.abs(s.x), Math.abs(s.y)));
      }
    }
  }
  if (feat.filter) {
    const bf = cs.backdropFilter;
    if (bf && bf !== 'none') blur = filterOf(bf, el)?.blur || 0;
  }
  const op = parseFloat(cs.opacity);
  if (!Number.isNaN(op)) alpha *= op;
  if (alpha < COVER_ALPHA && !blur && !spread) return null;
  return { alpha, blur, spread };
}

// shadows parses a computed box-shadow list.
function shadows(s) {
  const out = [];
  for (const part of s.split(/,(?![^(]*\))/)) {
    const c = colourList(part)[0] || [0, 0, 0, 1];
    const nums = part.replace(/(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\([^)]*\)/g, '').match(/-?[\d.]+px/g) || [];
    const [x = 0, y = 0, b = 0, sp = 0] = nums.map(parseFloat);
    out.push({ c, x, y, blur: b, spread: sp, inset: /\binset\b/.test(part) });
  }
  return out;
}

// imageAlpha: how opaque a background image is, as far as can be told
// from its value: a gradient's most transparent stop; an url() image is
// taken as opaque only when it was decoded here (same origin or data:).
function imageAlpha(v) {
  if (/url\(/.test(v)) return 0;
  const cs = colourList(v);
  return cs.length ? Math.min(...cs.map((c) => c[3])) : 0;
}

function imgAlpha(img) {
  return img.complete && img.naturalWidth > 0 && !/\.(png|svg|gif|webp)(\?|$)|^data:image\/(png|svg|gif|webp)/i.test(img.currentSrc || img.src) ? 1 : 0;
}

// pseudoBox is the border box of an absolutely positioned pseudo-element
// of el: its resolved left/top/width/height from its containing block.
function pseudoBox(el, cs, ps) {
  const w = parseFloat(ps.width), h = parseFloat(ps.height);
  const l = parseFloat(ps.left), t = parseFloat(ps.top);
  if ([w, h, l, t].some(Number.isNaN)) return null;
  let cb = el;
  if (ps.position === 'fixed') return box(l, t, l + w, t + h);
  if (cs.position === 'static') {
    cb = el.offsetParent;
    if (!cb) return null;
  }
  const r = cb.getBoundingClientRect();
  const x = r.left + cb.clientLeft, y = r.top + cb.clientTop;
  return box(x + l, y + t, x + l + w, y + t + h);
}

// Paint order. facts are the stacking facts of an element (or of a
// pseudo-element: {host, pseudo, cs}). A pseudo-element is told from an
// element by being no node: an <a> or <area> has a host (its URL's) and
// Chrome's elements a pseudo() method.
const stackFacts = new WeakMap();
const isPseudo = (n) => n.nodeType === undefined;
function facts(n) {
  if (isPseudo(n)) return stackOf(n.cs, false);
  let f = stackFacts.get(n);
  if (!f) {
    f = stackOf(getComputedStyle(n), n === n.ownerDocument.documentElement);
    stackFacts.set(n, f);
  }
  return f;
}
function stackOf(cs, isRoot) {
  const pos = cs.position;
  const z = pos !== 'static' ? parseInt(cs.zIndex, 10) : NaN;
  const sc = isRoot || (pos !== 'static' && !Number.isNaN(z)) || pos === 'fixed' || pos === 'sticky' ||
    cs.opacity !== '1' || cs.transform !== 'none' || cs.translate !== 'none' || cs.rotate !== 'none' || cs.scale !== 'none' ||
    cs.filter !== 'none' || cs.backdropFilter !== 'none' || cs.mixBlendMode !== 'normal' || cs.isolation === 'isolate' ||
    cs.maskImage !== 'none' || cs.clipPath !== 'none' || cs.perspective !== 'none' || /paint|layout|strict|content/.test(cs.contain) ||
    /transform|opacity|filter|perspective/.test(cs.willChange);
  return { pos, z: Number.isNaN(z) ? 0 : z, sc };
}

// before reports whether node a comes before node b in tree order (a
// pseudo-element {host, pseudo} sits first (::before) or last (::after)
// among its host's children).
function before(a, b) {
  const pa = isPseudo(a), pb = isPseudo(b);
  const ha = pa ? a.host : a, hb = pb ? b.host : b;
  if (ha === hb) {
    const rank = (n) => (isPseudo(n) ? (n.pseudo === '::before' ? 1 : 3) : 0);
    if (!pa) return pb;
    if (!pb) return false;
    return rank(a) < rank(b);
  }
  if (pa && a.pseudo === '::after' && ha.contains(hb)) return false;
  if (pb && b.pseudo === '::after' && hb.contains(ha)) return true;
  if (pa && a.pseudo === '::before' && ha.contains(hb)) return true;
  if (pb && b.pseudo === '::before' && hb.contains(ha)) return false;
  return !!(ha.compareDocumentPosition(hb) & Node.DOCUMENT_POSITION_FOLLOWING);
}

// paintPath is where something is painted: one [group, z, node] entry per
// stacking context from the root down. kind: 'bg' (a box's background)
// or 'fg' (text, an image).
function paintPath(node, kind) {
  const chain = [];
  for (let e = node; e; e = isPseudo(e) ? e.host : parentOf(e)) chain.unshift(e);
  const path = [];
  let start = 0;
  for (;;) {
    let next = -1, R = -1;
    for (let i = start + 1; i < chain.length; i++) {
      const f = facts(chain[i]);
      if (f.sc) {
        next = i;
        break;
      }
      if (f.pos !== 'static') R = i;
    }
    if (next >= 0) {
      const z = facts(chain[next]).z;
      path.push([z < 0 ? 1 : z > 0 ? 6 : 5, z, chain[next]]);
      start = next;
      continue;
    }
    const own = chain[chain.length - 1];
    if (R >= 0) path.push([5, 0, chain[R]]);
    const painter = R >= 0 ? chain[R] : chain[start];
    path.push(own === painter ? [kind === 'bg' ? 0 : 4, 0, own] : [kind === 'bg' ? 2 : 4, 0, own]);
    return path;
  }
}

// above reports whether path a is painted after (over) path b.
function above(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i], y = b[i];
    if (x[2] === y[2] && x[0] === y[0]) continue;
    if (x[0] !== y[0]) return x[0] > y[0];
    if (x[1] !== y[1]) return x[1] > y[1];
    return before(y[2], x[2]);
  }
  return false;
}

// anchorOf is what an element scrolls with: the nearest fixed or sticky
// ancestor or scroll container, or the document (null).
const anchors = new WeakMap();
function anchorOf(el) {
  if (anchors.has(el)) return anchors.get(el);
  let a = null;
  for (let e = el; e && e.nodeType === 1; e = parentOf(e)) {
    const cs = getComputedStyle(e);
    if (cs.position === 'fixed' || cs.position === 'sticky') {
      a = e;
      break;
    }
    const o = cs.overflow;
    if (e !== el && /auto|scroll/.test(o) && (e.scrollHeight > e.clientHeight || e.scrollWidth > e.clientWidth)) {
      a = e;
      break;
    }
  }
  anchors.set(el, a);
  return a;
}

// coverOver returns the covers painted over box b of text in element el
// (its context ctx), nearest first: those that hide it whole ({all: true,
// why}) or the list of those that hide part of it.
function coverOver(el, b, ctx, fs) {
  const f = ctx.d;
  const list = covers(f, el.ownerDocument);
  let found = null;
  let textPath = null;
  for (const c of list) {
    if (!overlaps(c.r, b)) continue;
    const node = c.pseudo ? { host: c.el, pseudo: c.pseudo, cs: c.ps } : c.el;
    if (!c.pseudo && (c.el === el || c.el.contains(el))) continue; // an ancestor's box is under what it holds
    if (c.alpha < COVER_ALPHA && !(c.blur >= BLUR_HIDES * fs)) continue;
    const vis = coverBox(c);
    if (!vis || !overlaps(vis, b)) continue;
    textPath ||= paintPath(el, 'fg');
    c.path ||= paintPath(node, 'bg');
    if (!above(c.path, textPath)) continue;
    const a = anchorOf(el);
    if (anchorOf(c.el) !== a && !inside(a ? fromRect(a.getBoundingClientRect()) : f.view, vis)) continue; // the text scrolls out from under it
    const hit = { r: vis, why: c.alpha >= COVER_ALPHA ? 'covered' : 'blur' };
    if (inside(b, vis)) return { all: true, why: hit.why };
    (found ||= []).push(hit);
  }
  return found;
}

// coverBox is the part of a cover's box that shows (clipped by what clips
// it), or null when it shows nothing.
function coverBox(c) {
  if (c.vis !== undefined) return c.vis;
  const k = context(c.pseudo ? c.el : parentOf(c.el) || c.el);
  let v = null;
  if (k && !k.hide && k.op >= COVER_ALPHA) {
    const m = meet(c.r, c.pseudo ? k.flow : (c.el.parentElement ? k.flow : k.self));
    if (m.r > m.l && m.b > m.t) v = m;
  }
  c.vis = v;
  return v;
}

const inside = (a, b) => a.l >= b.l - 1 && a.t >= b.t - 1 && a.r <= b.r + 1 && a.b <= b.b + 1;

// negativeUnder reports text in a negative z-index layer (nz: the
// layer's context) that a background of the layer's ancestors, painted after it,
// covers.
function negativeUnder(nz, b) {
  for (let c = nz.up; c && c.el; c = c.up) {
    if (c.el === nz.d.rootEl || c.el === nz.d.viewportEl) break; // their background is the canvas, under everything
    const bg = rgba(c.cs.backgroundColor);
    if ((bg && bg[3] >= COVER_ALPHA) || c.cs.backgroundImage !== 'none') {
      const r = fromRect(c.el.getBoundingClientRect());
      if (inside(b, r)) return true;
    }
    if (facts(c.el).sc) return false;
  }
  return false;
}
