// Gasoline's test of whether a person can see a piece of text, shared by
// every page script that hands page text to the agent: the snapshot walker
// (internal/snapshot), the action helpers (internal/actions: get_text and
// the names in answers) and the analyze modes. It runs in Gasoline's
// isolated world of a frame and installs globalThis.__gasolineVisible once
// (visible.go wraps this file, colour.js and paint.js in one function).
//
// It judges what the browser draws, from the renderer's own geometry and
// colours: each text run's boxes (per line and per word where only part
// shows) against what clips it and the page a person can scroll to; the
// colour its glyphs and the pixels beside them end up after opacity,
// filters, masks and blend modes, as the browser paints colours (any CSS
// colour space); what is painted over it (paint.js); its size on screen;
// and which way it faces. Running transitions and animations are judged
// on their settled state: a property a running animation moves to a
// visible value is visible. Callers skip display:none themselves.

const MIN_OPACITY = 0.1;
const MIN_FONT = 6; // px of text box height: smaller glyphs cannot be read
const MIN_SEEN = 3; // px: a sliver thinner than this shows nothing legible
const NAME_CAP = 80; // characters of unseen text a control's name may keep
const SETTLE_MS = 5000; // an animation ending within this is judged on its end state
const MAX_PAINTERS_SCAN = 100000;
const SVG_NS = 'http://www.w3.org/2000/svg';
const SKIP = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base']);
const REPLACED = new Set([
  'img', 'video', 'canvas', 'svg', 'picture', 'iframe', 'frame', 'object', 'embed', 'input', 'textarea',
  'select', 'button', 'meter', 'progress',
]);
const CONTROL = 'a[href], button, summary, [role=button], [role=link], [role=tab], [role=menuitem], ' +
  '[role=menuitemcheckbox], [role=menuitemradio], [role=option], [role=checkbox], [role=radio], ' +
  '[role=switch], [role=treeitem]';
const GEOMETRY = ['transform', 'translate', 'scale', 'rotate', 'top', 'left', 'right', 'bottom', 'inset', 'width', 'height',
  'maxHeight', 'maxWidth', 'marginTop', 'marginLeft', 'margin', 'clipPath', 'clip', 'fontSize', 'letterSpacing', 'textIndent'];

const box = (l, t, r, b) => ({ l, t, r, b });
const meet = (a, b) => box(Math.max(a.l, b.l), Math.max(a.t, b.t), Math.min(a.r, b.r), Math.min(a.b, b.b));
const seen = (a) => a.r - a.l >= MIN_SEEN && a.b - a.t >= MIN_SEEN;
const overlaps = (a, b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
const fromRect = (r) => box(r.left, r.top, r.right, r.bottom);
const norm = (s) => s.replace(/\s+/g, ' ').trim();
const clip = (s, n) => (s.length > n ? s.slice(0, n - 1).trimEnd() + '…' : s);

// parentOf is an element's parent in the rendered (flat) tree: its slot,
// its parent element, or its shadow root's host.
const parentOf = (n) => n.assignedSlot || n.parentElement || n.parentNode?.host || null;

// Per-document facts, kept for one walk (begin clears them) or, when a
// script calls text() without begin(), for the rest of the script's task;
// and the tally of what was dropped and why.
let docs = new Map();
let tally = {};
let live = false;
// keep: context() remembers the contexts it computes, per document, until
// the next begin — for a walker that asked (begin(true)) and reads, never
// changes, the page while it walks. A walk asks the context of each label
// it reads a name from and of each cover it weighs, and their ancestors
// are mostly the same ones.
let keep = false;
function begin(keepContexts) {
  docs = new Map();
  tally = {};
  keep = keepContexts === true;
  if (!live) {
    live = true;
    queueMicrotask(() => {
      live = false;
      keep = false;
    });
  }
}
function count(why) {
  tally[why] = (tally[why] || 0) + 1;
}
function doc(d) {
  let f = docs.get(d);
  if (!f) {
    const w = d.defaultView;
    const rootEl = d.documentElement;
    const rs = getComputedStyle(rootEl);
    const bs = d.body ? getComputedStyle(d.body) : null;
    // The viewport's overflow is the root's, or the body's when the
    // root's is visible; then the body itself clips nothing.
    const fromBody = rs.overflowX === 'visible' && rs.overflowY === 'visible' && bs;
    const vo = fromBody ? bs : rs;
    const view = box(0, 0, w.innerWidth, w.innerHeight);
    const hs = hosts(d); // one pass over every element, for features and animations both
    const stuckX = vo.overflowX === 'hidden' || vo.overflowX === 'clip';
    const stuckY = vo.overflowY === 'hidden' || vo.overflowY === 'clip';
    const page = box(
      stuckX ? 0 : -w.scrollX,
      stuckY ? 0 : -w.scrollY,
      stuckX ? w.innerWidth : Math.max(rootEl.scrollWidth, w.innerWidth) - w.scrollX,
      stuckY ? w.innerHeight : Math.max(rootEl.scrollHeight, w.innerHeight) - w.scrollY,
    );
    f = {
      view, page, canvas: canvas(d, rs), viewportEl: fromBody ? d.body : rootEl, rootEl, range: null, painters: null,
      covers: null, feat: features(d, hs), anims: animations(d, hs), ctxs: new Map(),
    };
    docs.set(d, f);
  }
  return f;
}

// canvas is the colour under everything: white, dark under a dark colour
// scheme, unknown (null) in a frame (the embedding page shows through).
function canvas(d, rs) {
  let framed = true;
  try {
    framed = d.defaultView !== d.defaultView.top;
  } catch {}
  if (framed) return null;
  const cs = rs.colorScheme || '';
  const dark = /\bdark\b/.test(cs) && (!/\blight\b/.test(cs) || matchMedia('(prefers-color-scheme: dark)').matches);
  return dark ? [18, 18, 18, 1] : [255, 255, 255, 1];
}

// animations maps each element a running animation or transition moves
// to what its keyframes reach: opacities, visibilities, text colours and
// filters, and whether it moves the element (its geometry is then judged
// settled: not dropped for where it is mid-way).
function animations(d, hs = hosts(d)) {
  const m = new Map();
  let list = [];
  try {
    list = d.getAnimations();
    for (const h of hs) list = list.concat(h.shadowRoot.getAnimations());
  } catch {
    return m;
  }
  for (const a of list) {
    const e = a.effect;
    const el = e?.target;
    if (a.playState !== 'running' || !el || e.pseudoElement) continue;
    let kf, t;
    try {
      kf = e.getKeyframes();
      t = e.getComputedTiming();
    } catch {
      continue;
    }
    let s = m.get(el);
    if (!s) m.set(el, (s = { op: [], vis: [], inks: [], filter: false, moves: false }));
    for (const k of kf) {
      if (k.opacity !== undefined) s.op.push(parseFloat(k.opacity));
      if (k.visibility !== undefined) s.vis.push(k.visibility);
      for (const p of ['color', 'webkitTextFillColor', 'fill']) if (k[p]) s.inks.push(k[p]);
      if (k.filter === 'none') s.filter = true;
    }
    const moving = GEOMETRY.some((p) => new Set(kf.map((k) => k[p]).filter((v) => v !== undefined)).size > 1);
    const left = Number.isFinite(t.endTime) ? (t.endTime - (t.localTime ?? 0)) / Math.abs(a.playbackRate || 1) : Infinity;
    if (moving && (left <= SETTLE_MS || !Number.isFinite(left))) s.moves = true;
  }
  return m;
}

// A context is what an element's children inherit, one per element: the
// box that clips its in-flow children (flow, viewport coordinates) and
// the box that clips everything under it (all: the CSS clip), the opacity
// so far, hide (the reason a whole subtree is unseen, '' when it is not),
// the paint effects on the way up (own: this element's opacity, fx: its
// filter, blend: its blend mode; effects: any on the chain), and,
// computed only when a descendant needs them, the boxes that clip
// absolutely positioned and fixed children (absBox, fixBox) and the
// background behind (bgOf). Style properties are read lazily, and the rare
// ones only when some style sheet of the document sets them (features):
// each read costs microseconds, and a walk makes thousands.
const ALL = box(-Infinity, -Infinity, Infinity, Infinity);
function root(d, outer) {
  const f = doc(d);
  return {
    d: f, el: null, cs: null, up: null, pos: 'static', flow: f.page, all: ALL, self: f.page,
    op: outer ? outer.op : 1, hide: outer ? outer.hide : '', hideHere: '', lazy: outer ? outer.lazy : false,
    abs: f.page, fix: f.view, bg: outer ? bgOf(outer) : { c: f.canvas, el: null }, cb: false, tx: null, txcs: null,
    blur: outer ? outer.blur : 0, effects: false, moving: outer ? outer.moving : false, negz: null,
  };
}

// context is the context of el's children, computed from the document's
// root down (outer: the context of the iframe el's document sits in).
function context(el, outer) {
  if (!el) return null;
  const memo = keep && !outer ? doc(el.ownerDocument).ctxs : null;
  const chain = [];
  let c = null;
  for (let e = el; e; e = parentOf(e)) {
    c = memo ? memo.get(e) : undefined;
    if (c) break;
    chain.push(e);
  }
  c ||= root(el.ownerDocument, outer);
  for (let i = chain.length - 1; i >= 0; i--) {
    c = enter(chain[i], getComputedStyle(chain[i]), c);
    if (memo) memo.set(chain[i], c);
  }
  return c;
}

// enter returns the context of el's children given el's computed style
// and its parent's context. c.self is the box that clips el itself. A
// caller that read display and visibility already passes them (each
// style read costs).
function enter(el, cs, ctx, display, visibility) {
  if ((display ?? cs.display) === 'contents') return ctx; // no box: its children are its parent's
  const pos = cs.position;
  const base = pos === 'absolute' ? absBox(ctx) : pos === 'fixed' ? fixBox(ctx) : ctx.flow;
  const d = ctx.d;
  const feat = d.feat;
  const anim = d.anims.size ? d.anims.get(el) : undefined;
  const n = {
    d, el, cs, up: ctx, pos, flow: base, all: ctx.all, self: base, op: ctx.op, hide: ctx.hide, hideHere: '',
    lazy: ctx.lazy, abs: null, fix: null, bg: null, cb: undefined, tx: null, txcs: null, vis: visibility, anim,
    blur: ctx.blur, own: 1, fx: null, blend: '', effects: ctx.effects, moving: ctx.moving || !!anim?.moves, negz: ctx.negz,
  };
  let v = 1;
  const o = cs.opacity;
  if (o !== '1') v = parseFloat(o);
  if (anim?.op.length) v = Math.max(v, ...anim.op); // settled: the most a running animation shows it
  const mask = feat.mask ? maskAlpha(el, cs) : 1;
  v *= mask;
  if (!Number.isNaN(v) && v < 1) {
    n.own = v;
    n.op *= v;
    n.effects = true;
  }
  if (feat.filter) {
    const fl = cs.filter;
    if (fl !== 'none' && !anim?.filter) {
      const fx = filterOf(fl, el);
      if (fx && !fx.unknown) {
        n.fx = fx;
        n.op *= fx.alpha;
        n.blur = Math.hypot(n.blur, fx.blur);
        n.effects = true;
      }
    }
  }
  if (feat['mix-blend']) {
    const bm = cs.mixBlendMode;
    if (bm !== 'normal') {
      n.blend = bm;
      n.effects = true;
    }
  }
  if (!n.hide) {
    const cv = cs.contentVisibility;
    if (cv === 'auto') n.lazy = true;
    if (n.op < MIN_OPACITY) n.hideHere = n.fx && n.fx.alpha < MIN_OPACITY ? 'filter' : mask < MIN_OPACITY ? 'mask' : 'opacity';
    else if (cv === 'hidden') n.hideHere = 'content-visibility';
    else {
      const cp = cs.clipPath;
      if (cp !== 'none' && showsNothing(cp, el)) n.hideHere = 'clip-path';
      else if (feat.backface && cs.backfaceVisibility === 'hidden' && facesAway(el, cs)) n.hideHere = 'backface';
    }
    n.hide = n.hideHere;
  }
  const ov = cs.overflow;
  let r = null;
  if (ov !== 'visible' && el !== d.viewportEl && el !== d.rootEl) {
    const [ox, oy = ox] = ov.split(' ');
    r = el.getBoundingClientRect();
    n.flow = meet(n.flow, overflowBox(el, ox, oy, r));
  }
  if (pos !== 'static') {
    if (pos === 'absolute' || pos === 'fixed') {
      const cl = cs.clip;
      const c = cl && cl !== 'auto' ? clipBox(cl, r || el.getBoundingClientRect()) : null;
      if (c) {
        n.all = meet(n.all, c);
        n.flow = meet(n.flow, c);
      }
    }
    const z = cs.zIndex;
    if (z !== 'auto' && parseInt(z, 10) < 0) n.negz = n;
  }
  return n;
}

// maskAlpha is the most a mask lets through: 0 for a gradient of only
// transparent stops or a zero mask size, an SVG <mask> whose shapes are
// all black or transparent; 1 when it cannot tell (an image).
function maskAlpha(el, cs) {
  const mi = cs.maskImage || cs.webkitMaskImage;
  if (!mi || mi === 'none') return 1;
  const size = cs.maskSize || cs.webkitMaskSize || '';
  if (/(^|\s)0(px|%)?(\s|$)/.test(size)) return 0;
  const ref = /^url\("?#([^")]+)"?\)$/.exec(mi) || /url\("?[^")]*#([^")]+)"?\)/.exec(mi);
  if (ref) {
    const m = el.ownerDocument.getElementById(ref[1]);
    if (m?.localName === 'mask') {
      let most = 0;
      for (const s of m.querySelectorAll('*')) {
        const k = getComputedStyle(s);
        const c = rgba(k.fill);
        if (c) most = Math.max(most, (lum(c) ** (1 / 2.2)) * c[3] * (parseFloat(k.fillOpacity) || 0) * (parseFloat(k.opacity) || 0));
      }
      return most;
    }
    return 1;
  }
  if (/url\(/.test(mi)) return 1;
  const stops = colourList(mi);
  return stops.length ? Math.max(...stops.map((c) => c[3])) : 1;
}

// facesAway reports an element with backface-visibility: hidden turned
// away from the viewer by its transform (and its 3D-preserving parents').
function facesAway(el, cs) {
  try {
    let m = new DOMMatrix(cs.transform === 'none' ? undefined : cs.transform);
    for (let p = parentOf(el); p; p = parentOf(p)) {
      const ps = getComputedStyle(p);
      if (ps.transformStyle !== 'preserve-3d') break;
      if (ps.transform !== 'none') m = new DOMMatrix(ps.transform).multiply(m);
    }
    return m.m33 < 0;
  } catch {
    return false;
  }
}

// holdsFixed reports an element that is the containing block of its
// fixed (and absolute) descendants: a transform, filter, perspective or
// containment.
function holdsFixed(c) {
  if (c.cb === undefined) {
    const cs = c.cs;
    c.cb = cs.transform !== 'none' || cs.filter !== 'none' || cs.perspective !== 'none' ||
      /paint|layout|strict|content/.test(cs.contain) || /transform|perspective|filter/.test(cs.willChange);
  }
  return c.cb;
}

// absBox is the box that clips absolutely positioned children of c's
// element: their containing block's (the nearest positioned or
// transformed ancestor).
function absBox(c) {
  if (!c.abs) c.abs = c.pos !== 'static' || holdsFixed(c) ? c.flow : meet(absBox(c.up), c.all);
  return c.abs;
}

// fixBox is the box that clips fixed children: the viewport's, or a
// transformed ancestor's.
function fixBox(c) {
  if (!c.fix) c.fix = holdsFixed(c) ? c.flow : meet(fixBox(c.up), c.all);
  return c.fix;
}

// bgOf is the background colour behind c's element's content (null when
// unknown) and the element that painted it (null: the canvas), from the
// background colours of its ancestors.
function bgOf(c) {
  if (c.bg) return c.bg;
  const under = bgOf(c.up);
  let r = under;
  const k = rgba(c.cs.backgroundColor);
  if (!k) r = { c: null, el: c.el };
  else if (k[3] > 0) r = { c: k[3] >= 1 ? k : under.c && over(k, under.c), el: c.el };
  c.bg = r;
  return r;
}

// overflowBox is what an overflow box lets show: its box where overflow
// is hidden or clip, its scrollable area where a person can scroll.
function overflowBox(el, ox, oy, r) {
  const axis = (o, lo, hi, scrolled, size, len) => {
    if (o === 'visible') return [-Infinity, Infinity];
    if (o === 'hidden' || o === 'clip') return [lo, hi];
    return [lo - scrolled, lo - scrolled + Math.max(size, len)];
  };
  const x = axis(ox, r.left, r.right, el.scrollLeft, el.scrollWidth, r.width);
  const y = axis(oy, r.top, r.bottom, el.scrollTop, el.scrollHeight, r.height);
  return box(x[0], y[0], x[1], y[1]);
}

// clipBox is the box of a computed clip: rect(top, right, bottom, left).
function clipBox(clipValue, r) {
  const m = /rect\(([^)]*)\)/.exec(clipValue);
  if (!m) return null;
  const v = m[1].split(/[\s,]+/).filter(Boolean).map((s) => (s === 'auto' ? null : parseFloat(s)));
  if (v.length !== 4 || v.some((x) => Number.isNaN(x))) return null;
  const [t, rt, b, l] = v;
  return box(
    l === null ? -Infinity : r.left + l,
    t === null ? -Infinity : r.top + t,
    rt === null ? Infinity : r.left + rt,
    b === null ? Infinity : r.top + b,
  );
}

// showsNothing reports a clip-path that leaves no area: inset() eating
// the box, circle() or ellipse() of radius 0, a polygon of one point, an
// SVG <clipPath> with no shape of any size.
function showsNothing(cp, el) {
  const len = (v, size) => (v.endsWith('%') ? (parseFloat(v) / 100) * size : parseFloat(v));
  const w = el.offsetWidth || el.getBoundingClientRect().width;
  const h = el.offsetHeight || el.getBoundingClientRect().height;
  let m = /^inset\(([^)]*)\)/.exec(cp);
  if (m) {
    const v = m[1].split(' round ')[0].trim().split(/\s+/);
    const [t, r = t, b = t, l = r] = v;
    return len(t, h) + len(b, h) >= h || len(l, w) + len(r, w) >= w;
  }
  m = /^(circle|ellipse)\(([^)]*)\)/.exec(cp);
  if (m) {
    const radii = m[2].split(' at ')[0].trim().split(/\s+/).filter(Boolean);
    return radii.length > 0 && radii.some((v) => /^-?[\d.]+(px|%)?$/.test(v) && parseFloat(v) <= 0);
  }
  m = /^polygon\(([^)]*)\)/.exec(cp);
  if (m) {
    const pts = m[1].replace(/^\s*(nonzero|evenodd)\s*,/, '').split(',').map((p) => p.trim().split(/\s+/));
    const xs = new Set(pts.map((p) => len(p[0] || '0', w)));
    const ys = new Set(pts.map((p) => len(p[1] || '0', h)));
    return xs.size <= 1 || ys.size <= 1;
  }
  m = /^url\("?[^")]*#([^")]+)"?\)/.exec(cp);
  if (m) {
    const c = el.ownerDocument.getElementById(m[1]);
    if (c?.localName.toLowerCase() !== 'clippath') return false;
    return ![...c.children].some((s) => {
      const b = s.getBBox?.();
      return b && b.width > 0 && b.height > 0;
    });
  }
  return false;
}

function textBox(t, f) {
  f.range ||= t.ownerDocument.createRange();
  f.range.selectNodeContents(t);
  return f.range.getBoundingClientRect();
}

// textFacts are what the text children of an element share: read once
// per element (cs is the style the text takes: its element's, or the
// slot's it is assigned to).
function textFacts(c, cs) {
  if (c.txcs !== cs) {
    c.txcs = cs;
    const vis = (c.cs === cs && c.vis) || cs.visibility;
    const shown = vis === 'visible' || !!c.anim?.vis.includes('visible');
    c.tx = { shown, fs: parseFloat(cs.fontSize), faint: undefined };
  }
  return c.tx;
}

// textHidden says why a person cannot see text node t: '' when all of it
// shows, a reason when none does, or {keep, why} when only part shows
// (keep: the words that do). cs is the computed style of the element it
// sits in and ctx that element's context (from enter).
function textHidden(t, cs, ctx) {
  if (ctx.hide) return ctx.hide;
  const f = textFacts(ctx, cs);
  if (!f.shown) return 'visibility';
  if (f.fs < 1) return 'font-size';
  if (ctx.blur && ctx.blur >= BLUR_HIDES * f.fs) return 'blur';
  const r = textBox(t, ctx.d);
  if (r.width === 0 && r.height === 0) return ctx.lazy ? faintText(t, cs, ctx, null) : 'zero-size'; // content-visibility: auto left it unlaid: no geometry to judge
  if (!ctx.moving) {
    if (r.width < MIN_SEEN || r.height < MIN_SEEN) return r.height > 0 && r.height < MIN_FONT ? 'font-size' : 'zero-size';
    if ((r.height < f.fs * 0.9 || f.fs < MIN_FONT + 2) && tiny(t, ctx.d)) return 'font-size';
  }
  const b = fromRect(r);
  const el = ctx.el || t.parentElement;
  let clipTo = null;
  if (!ctx.moving) {
    if (!seen(meet(b, ctx.flow))) return seen(meet(b, ctx.d.page)) ? 'clipped' : 'off-page';
    if (!inside(b, ctx.flow)) clipTo = ctx.flow;
  }
  if (ctx.negz && negativeUnder(ctx.negz, b)) return 'covered';
  const why = faintText(t, cs, ctx, b);
  if (why) return why;
  const cov = coverOver(el, b, ctx, f.fs);
  if (cov?.all) return cov.why;
  const fl = ctx.d.feat['first-line'] ? firstLine(t, cs, ctx) : null;
  if (!clipTo && !cov && !fl) return '';
  return partial(t, ctx.d, (w) => {
    if (clipTo && !inside(w, clipTo)) return 'clipped';
    const c = cov?.find((k) => inside(w, k.r));
    if (c) return c.why;
    if (fl && w.t < fl.bottom - 1) return 'colour';
    return '';
  });
}

// tiny reports text whose every line box is under MIN_FONT px tall:
// glyphs too small to read, however the font size was set (a small font,
// a transform scaling it down, zoom).
function tiny(t, f) {
  f.range.selectNodeContents(t);
  let most = 0;
  for (const r of f.range.getClientRects()) most = Math.max(most, r.height);
  return most > 0 && most < MIN_FONT;
}

// partial splits text t into words and keeps those ok(box) passes ('' for
// a word that shows, else why it does not): '' when all show, the first
// reason when none does, else {keep, why}.
function partial(t, f, ok) {
  const r = f.range;
  const keep = [];
  let why = '';
  let words = 0;
  for (const m of t.data.matchAll(/\S+/g)) {
    if (++words > 4000) break;
    r.setStart(t, m.index);
    r.setEnd(t, m.index + m[0].length);
    const b = r.getBoundingClientRect();
    const w = ok(fromRect(b));
    if (!w) keep.push(m[0]);
    else why ||= w;
  }
  if (!why) return '';
  if (!keep.length) return why;
  return { keep: keep.join(' '), why };
}

// firstLine returns {bottom} when text t is in a block whose ::first-line
// draws it in a colour nobody can read (the words above bottom are then
// unseen), else null.
function firstLine(t, cs, ctx) {
  let c = ctx;
  while (c && c.cs && /^inline/.test(c.cs.display)) c = c.up;
  if (!c || !c.cs) return null;
  if (c.fl === undefined) {
    c.fl = null;
    const ps = getComputedStyle(c.el, '::first-line');
    const ink = rgba(ps.webkitTextFillColor !== cs.webkitTextFillColor ? ps.webkitTextFillColor : ps.color);
    if (ink && ps.color !== getComputedStyle(c.el).color && hidesInk(ink, ctx)) {
      const r = ctx.d.range;
      r.selectNodeContents(c.el);
      const first = r.getClientRects()[0];
      if (first) c.fl = { bottom: first.bottom };
    }
  }
  return c.fl;
}

function hidesInk(ink, ctx) {
  const px = shade(ink, ctx);
  return !!px && contrast(px[0], px[1]) < MIN_CONTRAST;
}

// faintText is textHidden's colour test: 'colour' when text drawn in
// (nearly) its background's colour has nothing else behind it (b: its
// box; null when unknown, and then nothing is behind it).
function faintText(t, cs, ctx, b) {
  const f = textFacts(ctx, cs);
  if (f.faint === undefined) f.faint = faint(cs, ctx);
  if (!f.faint) return '';
  if (f.faint === 'svg') return svgFaint(t, cs, ctx, b);
  if (hasImage(ctx, b)) return '';
  return b && behind(t, b, bgOf(ctx), f.faint) ? '' : 'colour';
}

// shade is what a glyph pixel of colour ink and the background pixel
// beside it end up as on screen, from the text's element up to the page's
// canvas: through each ancestor's background, opacity, filter and blend
// mode. null when some colour on the way is unknown.
function shade(ink, ctx) {
  let g = ink, k = [0, 0, 0, 0];
  let mode = '';
  for (let c = ctx; c; c = c.up) {
    const bg = c.cs ? rgba(c.cs.backgroundColor) : c.d.canvas;
    if (!bg) return null;
    if (bg[3] > 0) {
      g = mode ? blend(mode, g, bg) : over(g, bg);
      k = mode ? blend(mode, k, bg) : over(k, bg);
      mode = '';
    }
    if (!c.cs) break;
    if (c.fx) {
      g = c.fx.px(g);
      k = c.fx.px(k);
    }
    if (c.own < 1) {
      g = [g[0], g[1], g[2], g[3] * c.own];
      k = [k[0], k[1], k[2], k[3] * c.own];
    }
    if (c.blend) mode = c.blend;
  }
  return [g, k];
}

// faint returns the colour text is drawn in when it is (nearly) that of
// what is behind it, with no shadow or stroke that stands out; 'svg' for
// SVG text (its fill, judged against the shapes under it); else null.
function faint(cs, ctx) {
  if (ctx.el?.namespaceURI === SVG_NS) return 'svg';
  const bg = bgOf(ctx).c;
  const inks = [cs.webkitTextFillColor, ...(ctx.anim?.inks || [])];
  let out = null;
  for (const s of inks) {
    const c = rgba(s); // what text is painted in (color, unless set)
    if (!c) return null;
    if (ctx.effects || !bg) {
      const px = shade(c, ctx);
      if (!px || contrast(px[0], px[1]) >= MIN_CONTRAST) return null;
      out = px[0];
      continue;
    }
    if (c[3] * ctx.op >= 1 && contrast(c, bg) >= MIN_CONTRAST) return null; // opaque ink: no blending to do
    const ink = over([c[0], c[1], c[2], c[3] * ctx.op], bg);
    if (contrast(ink, bg) >= MIN_CONTRAST) return null;
    out = ink;
  }
  const bgc = bg || [255, 255, 255, 1];
  const stands = (s) => (s.match(/(?:rgba?|oklch|oklab|lab|lch|color|hsla?|hwb)\((?:[^()]|\([^()]*\))*\)/g) || []).some((x) => {
    const k = rgba(x);
    return !k || (k[3] > 0 && contrast(over(k, bgc), bgc) >= MIN_CONTRAST);
  });
  if (cs.textShadow !== 'none' && stands(cs.textShadow)) return null;
  if (parseFloat(cs.webkitTextStrokeWidth) > 0 && stands(cs.webkitTextStrokeColor)) return null;
  for (let c = ctx; c && c.cs; c = c.up) if (c.fx?.shadows.some((k) => contrast(over(k, bgc), bgc) >= MIN_CONTRAST)) return null;
  return out;
}

// svgFaint judges SVG text: its fill (and stroke) against the SVG shapes
// painted before it under its box, or what is behind the <svg>.
function svgFaint(t, cs, ctx, b) {
  const fill = cs.fill === 'none' ? [0, 0, 0, 0] : rgba(cs.fill);
  if (!fill) return ''; // a gradient or pattern
  const fo = parseFloat(cs.fillOpacity);
  let ink = [fill[0], fill[1], fill[2], fill[3] * (Number.isNaN(fo) ? 1 : fo)];
  if (cs.stroke !== 'none' && parseFloat(cs.strokeWidth) > 0) {
    const s = rgba(cs.stroke);
    if (!s) return '';
    if (ink[3] < 0.05) ink = s;
  }
  const svg = ctx.el.ownerSVGElement || ctx.el;
  let under = null;
  let c = ctx;
  while (c.up && c.el !== svg) c = c.up;
  if (b) {
    for (const s of svg.querySelectorAll('rect, circle, ellipse, path, polygon, polyline, image, use, foreignObject')) {
      if (!(s.compareDocumentPosition(ctx.el) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      if (!inside(b, fromRect(s.getBoundingClientRect()))) continue;
      const k = getComputedStyle(s);
      if (/^(image|use|foreignobject)$/i.test(s.localName)) under = 'unknown';
      else {
        const sf = rgba(k.fill);
        if (!sf) under = 'unknown';
        else if (sf[3] > 0 && k.fill !== 'none') under = [sf[0], sf[1], sf[2], sf[3] * (parseFloat(k.fillOpacity) || 0) * (parseFloat(k.opacity) || 0)];
      }
    }
  }
  if (under === 'unknown') return '';
  const px = shade(under ? over(ink, under) : ink, ctx);
  const gr = shade(under || [0, 0, 0, 0], ctx);
  if (!px || !gr) return '';
  return contrast(px[0], gr[0]) < MIN_CONTRAST ? 'colour' : '';
}

// hasImage reports a background image on c's element or an ancestor up
// to the one that painted the background colour, that text may stand out
// against: an url() image, or a gradient with a stop the text's colour
// contrasts with.
function hasImage(c, b) {
  const stop = bgOf(c).el;
  const ink = c.tx?.faint;
  for (let e = c; e && e.cs; e = e.up) {
    const bi = e.cs.backgroundImage;
    if (bi !== 'none') {
      if (/url\(/.test(bi)) return !imageMatches(e.el, bi, ink, b);
      const stops = colourList(bi);
      if (!ink || stops.some((s) => s[3] > 0.05 && contrast(over(s, [255, 255, 255, 1]), ink) >= MIN_CONTRAST)) return true;
    }
    if (e.el === stop) return false;
  }
  return false;
}

// imageMatches reports a background image that the browser has decoded
// and that this world may read (same origin or data:), every sampled pixel
// of which is the ink's colour: text on it cannot be seen.
const images = new Map();
function imageMatches(el, bi, ink, _box) {
  if (!ink) return false;
  const url = /url\("?([^")]*)"?\)/.exec(bi)?.[1];
  if (!url) return false;
  let px = images.get(url);
  if (px === undefined) {
    px = null;
    try {
      const img = new Image();
      img.src = url;
      if (img.complete && img.naturalWidth) {
        const c = new OffscreenCanvas(16, 16).getContext('2d', { willReadFrequently: true });
        c.drawImage(img, 0, 0, 16, 16);
        px = c.getImageData(0, 0, 16, 16).data;
      }
    } catch {
      px = null; // cross-origin: tainted
    }
    images.set(url, px);
  }
  if (!px) return false;
  for (let i = 0; i < px.length; i += 4) {
    if (px[i + 3] < 13) continue;
    if (contrast([px[i], px[i + 1], px[i + 2], 1], ink) >= MIN_CONTRAST) return false;
  }
  return true;
}

// behind reports whether something besides the ancestors' background may
// paint under text box b: a replaced element (image, video, canvas,
// control), a background image, or a box of a colour the text stands out
// from, overlapping b, or a pseudo-element's background on an ancestor.
// bg is the background found behind the text (bgOf), ink its colour.
function behind(t, b, bg, ink) {
  const anc = new Set();
  let stopped = false;
  for (let e = parentOf(t); e; e = parentOf(e)) {
    anc.add(e);
    if (!stopped && pseudoPaints(e, ink)) return true;
    if (e === bg.el) stopped = true;
  }
  const f = doc(t.ownerDocument);
  f.painters ||= painters(t.ownerDocument);
  for (const p of f.painters.list) {
    if (anc.has(p.el) || !overlaps(p.r, b)) continue;
    if (p.image || !p.c || (bg.c && contrast(over(p.c, bg.c), ink) >= MIN_CONTRAST)) return true;
  }
  return f.painters.truncated;
}

function pseudoPaints(el, ink) {
  for (const which of ['::before', '::after']) {
    const ps = getComputedStyle(el, which);
    if (ps.content === 'none' || ps.content === 'normal' || ps.display === 'none') continue;
    if (ps.backgroundImage !== 'none') return true;
    const c = rgba(ps.backgroundColor);
    if (!c || (c[3] > 0 && contrast(over(c, [255, 255, 255, 1]), ink) >= MIN_CONTRAST)) return true;
  }
  return false;
}

// painters lists the elements of a document that paint something of
// their own (once per walk, only when some text's colour is in doubt).
function painters(d) {
  const list = [];
  let n = 0;
  const visit = (el) => {
    if (++n > MAX_PAINTERS_SCAN) return;
    const cs = getComputedStyle(el);
    if (cs.display === 'none') return;
    const image = REPLACED.has(el.localName) || cs.backgroundImage !== 'none';
    const c = rgba(cs.backgroundColor);
    if ((image || !c || c[3] > 0) && cs.visibility === 'visible') {
      const r = el.getBoundingClientRect();
      if (r.width >= 1 && r.height >= 1) list.push({ el, r: fromRect(r), c, image });
    }
    if (el.shadowRoot) for (let k = el.shadowRoot.firstElementChild; k; k = k.nextElementSibling) visit(k);
    for (let k = el.firstElementChild; k; k = k.nextElementSibling) visit(k);
  };
  if (d.documentElement) visit(d.documentElement);
  return { list, truncated: n > MAX_PAINTERS_SCAN };
}

// boxHidden says why a person cannot see element el itself (an image, a
// frame, a named region), or ''. n is its context from enter.
function boxHidden(el, cs, n) {
  if (n.hide && n.hideHere !== 'content-visibility') return n.hide; // its own content-visibility hides only its content
  if (cs.visibility !== 'visible' && !n.anim?.vis.includes('visible')) return 'visibility';
  if (cs.display === 'contents') return '';
  const r = el.getBoundingClientRect();
  if (n.moving) return '';
  if (r.width < MIN_SEEN || r.height < MIN_SEEN) return 'zero-size';
  const b = fromRect(r);
  if (!seen(meet(b, n.self))) return seen(meet(b, doc(el.ownerDocument).page)) ? 'clipped' : 'off-page';
  const cov = coverOver(el, b, n.up || n, 16);
  if (cov?.all) return cov.why;
  return '';
}

// text is the text a person sees in el, laid out like innerText (blocks
// on their own lines, <pre> kept), and how many text runs were dropped as
// unseen (why: the tally by reason). Unseen text inside a control (a
// visually-hidden label in a button or link) stays, up to NAME_CAP
// characters per control: it is the control's accessible name. A limit
// stops reading once that many characters are in (names, descriptions).
// secret (optional) tells a sensitive element (internal/sensitive), which
// reads •••• whole. A closed <details> shows only its summary. quiet
// leaves the tally alone (a caller only asking whether el shows text).
function text(el, limit, secret, quiet) {
  if (!live) begin();
  const was = { ...tally };
  let out = '';
  let brk = false;
  let dropped = 0;
  const put = (s, raw) => {
    if (!raw) s = s.replace(/\s+/g, ' ');
    if (brk && s.trim()) {
      out = out.replace(/[ \t]+$/, '');
      if (out && !out.endsWith('\n')) out += '\n';
      brk = false;
    }
    if (!raw && s.startsWith(' ') && (!out || /[ \n\t]$/.test(out))) s = s.slice(1);
    out += s;
  };
  const kidsOf = (e) => {
    if (e.localName === 'slot') {
      const a = e.assignedNodes({ flatten: true });
      if (a.length) return a;
    }
    if (e.localName === 'details' && !e.open) {
      const s = e.querySelector(':scope > summary');
      return s ? [s] : [];
    }
    return (e.shadowRoot || e).childNodes;
  };
  const drop = (why) => {
    dropped++;
    if (!quiet) count(why);
  };
  const walk = (e, pctx, ctl) => {
    if (limit && out.length > limit) return;
    const tag = e.localName;
    if (SKIP.has(tag)) return;
    if (tag === 'br') {
      out = out.replace(/[ \t]+$/, '') + '\n';
      return;
    }
    const cs = getComputedStyle(e);
    const disp = cs.display;
    if (disp === 'none') return;
    if (tag === 'textarea' || tag === 'input') return; // their text is a value (get_value), drawn in their own box
    const ctx = enter(e, cs, pctx, disp);
    if (secret && secret(e)) {
      if (!boxHidden(e, cs, ctx)) put(' •••• ', false);
      return;
    }
    if (tag === 'select') {
      const shown = [...e.selectedOptions].map((o) => o.text).join(', '); // what the closed list shows
      if (!shown.trim()) return;
      const why = boxHidden(e, cs, ctx);
      if (why) drop(why);
      else put(' ' + shown + ' ', false);
      return;
    }
    if (!ctl && e.matches(CONTROL)) ctl = { left: NAME_CAP };
    const block = !disp.startsWith('inline') && disp !== 'contents' && disp !== 'table-cell';
    const raw = /^pre|^break-spaces/.test(cs.whiteSpace) || cs.whiteSpaceCollapse === 'preserve';
    if (block) brk = true;
    for (const k of kidsOf(e)) {
      if (k.nodeType === 1) walk(k, ctx, ctl);
      else if (k.nodeType !== 3) continue;
      else if (!/\S/.test(k.data)) put(raw ? k.data : ' ', raw);
      else {
        const why = textHidden(k, cs, ctx);
        if (!why) put(k.data, raw);
        else if (ctl && ctl.left > 0) {
          const s = clip(norm(k.data), ctl.left);
          ctl.left -= s.length;
          put(' ' + s + ' ', false);
        } else if (typeof why === 'object') {
          put(' ' + why.keep + ' ', false);
          drop(why.why);
        } else drop(why);
      }
    }
    if (disp === 'table-cell') put('\t', true);
    if (block) brk = true;
  };
  const p = parentOf(el);
  walk(el, p ? context(p) : root(el.ownerDocument), null);
  const why = {};
  for (const k of Object.keys(tally)) if (tally[k] !== (was[k] || 0)) why[k] = tally[k] - (was[k] || 0);
  return { text: out.replace(/[ \t]+$/gm, '').trim(), dropped, why };
}

globalThis.__gasolineVisible = {
  begin, root, context, enter, textHidden, boxHidden, text, parentOf, count, tally: () => ({ ...tally }), NAME_CAP,
};
