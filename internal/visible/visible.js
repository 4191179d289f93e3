// Gasoline's test of whether a person can see a piece of text, shared by
// every page script that hands page text to the agent: the snapshot walker
// (internal/snapshot), the action helpers (internal/actions: get_text and
// the names in answers) and the analyze modes. It runs in Gasoline's
// isolated world of a frame and installs globalThis.__gasolineVisible once.
//
// Text is unseen when: visibility is not visible; the opacity of it and its
// ancestors multiplies to under MIN_OPACITY;
// content-visibility: hidden holds it; it lies outside what clips it (an
// overflow hidden/clip box, zero-size boxes included; the CSS clip
// rectangle; a clip-path that shows nothing) or outside the page a person
// can scroll to (absolute, fixed, transformed, text-indent, negative
// margins); its font is under MIN_FONT px; or its colour is that of the
// background behind it (contrast under MIN_CONTRAST against its ancestors'
// background colours, unless an image, video, canvas, control or box of
// another colour overlaps it, or a shadow or stroke draws it). Callers skip
// display:none themselves (nothing is rendered there).
(() => {
  if (globalThis.__gasolineVisible) return;
  const MIN_OPACITY = 0.1;
  const MIN_CONTRAST = 1.2;
  const MIN_FONT = 4;
  const MIN_SEEN = 3; // px: a sliver thinner than this shows nothing legible
  const NAME_CAP = 80; // characters of unseen text a control's name may keep
  const MAX_PAINTERS_SCAN = 100000;
  const SKIP = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base']);
  const REPLACED = new Set([
    'img', 'video', 'canvas', 'svg', 'picture', 'iframe', 'frame', 'object', 'embed', 'input', 'textarea',
    'select', 'button', 'meter', 'progress',
  ]);
  const CONTROL = 'a[href], button, summary, [role=button], [role=link], [role=tab], [role=menuitem], ' +
    '[role=menuitemcheckbox], [role=menuitemradio], [role=option], [role=checkbox], [role=radio], ' +
    '[role=switch], [role=treeitem]';

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

  // rgba parses a computed colour; null when it is not rgb() or rgba()
  // (color(), oklch(): treated as unknown, so nothing is dropped for it).
  const colours = new Map();
  function rgba(s) {
    let c = colours.get(s);
    if (c === undefined) {
      c = parseColour(s);
      if (colours.size < 4096) colours.set(s, c);
    }
    return c;
  }
  function parseColour(s) {
    const m = /^rgba?\(([^)]*)\)$/.exec(s || '');
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map((v) => (v.endsWith('%') ? parseFloat(v) / 100 : parseFloat(v)));
    if (p.length < 3 || p.some(Number.isNaN)) return null;
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  const over = (top, under) => {
    const a = top[3];
    return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1];
  };
  function lum(c) {
    if (c.L === undefined) {
      const f = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      c.L = 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); // parsed colours are shared: once each
    }
    return c.L;
  }
  function contrast(a, b) {
    const x = lum(a), y = lum(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }

  // Per-document facts, kept for one walk (begin clears them).
  let docs = new Map();
  function begin() {
    docs = new Map();
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
      const stuckX = vo.overflowX === 'hidden' || vo.overflowX === 'clip';
      const stuckY = vo.overflowY === 'hidden' || vo.overflowY === 'clip';
      const page = box(
        stuckX ? 0 : -w.scrollX,
        stuckY ? 0 : -w.scrollY,
        stuckX ? w.innerWidth : Math.max(rootEl.scrollWidth, w.innerWidth) - w.scrollX,
        stuckY ? w.innerHeight : Math.max(rootEl.scrollHeight, w.innerHeight) - w.scrollY,
      );
      f = { view, page, canvas: canvas(d, rs), viewportEl: fromBody ? d.body : rootEl, rootEl, range: null, painters: null };
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

  // A context is what an element's children inherit, one per element: the
  // box that clips its in-flow children (flow, viewport coordinates) and
  // the box that clips everything under it (all: the CSS clip), the opacity
  // so far, hide (the reason a whole subtree is unseen, '' when it is not)
  // and, computed only when a descendant needs them, the boxes that clip
  // absolutely positioned and fixed children (absBox, fixBox) and the
  // background behind (bgOf). Style properties are read lazily: each read
  // costs microseconds, and a walk makes thousands.
  const ALL = box(-Infinity, -Infinity, Infinity, Infinity);
  function root(d, outer) {
    const f = doc(d);
    return {
      d: f, el: null, cs: null, up: null, pos: 'static', flow: f.page, all: ALL, self: f.page,
      op: outer ? outer.op : 1, hide: outer ? outer.hide : '', hideHere: '', lazy: outer ? outer.lazy : false,
      abs: f.page, fix: f.view, bg: outer ? bgOf(outer) : { c: f.canvas, el: null }, cb: false, tx: null, txcs: null,
    };
  }

  // context is the context of el's children, computed from the document's
  // root down (outer: the context of the iframe el's document sits in).
  function context(el, outer) {
    if (!el) return null;
    const chain = [];
    for (let e = el; e; e = parentOf(e)) chain.push(e);
    let c = root(el.ownerDocument, outer);
    for (let i = chain.length - 1; i >= 0; i--) c = enter(chain[i], getComputedStyle(chain[i]), c);
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
    const n = {
      d: ctx.d, el, cs, up: ctx, pos, flow: base, all: ctx.all, self: base, op: ctx.op, hide: ctx.hide, hideHere: '',
      lazy: ctx.lazy, abs: null, fix: null, bg: null, cb: undefined, tx: null, txcs: null, vis: visibility,
    };
    const o = cs.opacity;
    if (o !== '1') {
      const v = parseFloat(o);
      if (!Number.isNaN(v)) n.op *= v;
    }
    if (!n.hide) {
      const cv = cs.contentVisibility;
      if (cv === 'auto') n.lazy = true;
      if (n.op < MIN_OPACITY) n.hideHere = 'opacity';
      else if (cv === 'hidden') n.hideHere = 'content-visibility';
      else {
        const cp = cs.clipPath;
        if (cp !== 'none' && showsNothing(cp, el)) n.hideHere = 'clip-path';
      }
      n.hide = n.hideHere;
    }
    const d = ctx.d;
    const ov = cs.overflow;
    let r = null;
    if (ov !== 'visible' && el !== d.viewportEl && el !== d.rootEl) {
      const [ox, oy = ox] = ov.split(' ');
      r = el.getBoundingClientRect();
      n.flow = meet(n.flow, overflowBox(el, ox, oy, r));
    }
    if (pos === 'absolute' || pos === 'fixed') {
      const cl = cs.clip;
      const c = cl && cl !== 'auto' ? clipBox(cl, r || el.getBoundingClientRect()) : null;
      if (c) {
        n.all = meet(n.all, c);
        n.flow = meet(n.flow, c);
      }
    }
    return n;
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
  // background colours of its ancestors. Background images are checked
  // only when text looks faint against it (hasImage).
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

  // hasImage reports a background image on c's element or an ancestor up
  // to the one that painted the background colour: what shows is unknown.
  function hasImage(c) {
    const stop = bgOf(c).el;
    for (let e = c; e && e.cs; e = e.up) {
      if (e.cs.backgroundImage !== 'none') return true;
      if (e.el === stop) return false;
    }
    return false;
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
  // the box, circle() or ellipse() of radius 0, a polygon of one point.
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
      c.tx = { vis: (c.cs === cs && c.vis) || cs.visibility, fs: parseFloat(cs.fontSize), faint: undefined };
    }
    return c.tx;
  }

  // textHidden says why a person cannot see text node t, or ''. cs is the
  // computed style of the element it sits in and ctx that element's
  // context (from enter).
  function textHidden(t, cs, ctx) {
    if (ctx.hide) return ctx.hide;
    const f = textFacts(ctx, cs);
    if (f.vis !== 'visible') return 'visibility';
    if (f.fs < MIN_FONT) return 'font-size';
    const r = textBox(t, ctx.d);
    if (r.width === 0 && r.height === 0 && ctx.lazy) return faintText(t, cs, ctx, null); // content-visibility: auto left it unlaid: no geometry to judge
    if (r.width < MIN_SEEN || r.height < MIN_SEEN) return r.height > 0 && r.height < MIN_FONT ? 'font-size' : 'zero-size';
    const b = fromRect(r);
    if (!seen(meet(b, ctx.flow))) return seen(meet(b, ctx.d.page)) ? 'clipped' : 'off-page';
    return faintText(t, cs, ctx, b);
  }

  // faintText is textHidden's colour test: 'colour' when text drawn in
  // (nearly) its background's colour has nothing else behind it (b: its
  // box; null when unknown, and then nothing is behind it).
  function faintText(t, cs, ctx, b) {
    const f = textFacts(ctx, cs);
    if (f.faint === undefined) f.faint = faint(cs, ctx);
    if (!f.faint || hasImage(ctx)) return '';
    return b && behind(t, b, bgOf(ctx), f.faint) ? '' : 'colour';
  }

  // faint returns the colour text is drawn in when it is (nearly) that of
  // the background colour behind it, with no shadow or stroke that stands
  // out; else null.
  function faint(cs, ctx) {
    const bg = bgOf(ctx).c;
    if (!bg) return null;
    const c = rgba(cs.webkitTextFillColor); // what text is painted in (color, unless set)
    if (!c) return null;
    if (c[3] * ctx.op >= 1 && contrast(c, bg) >= MIN_CONTRAST) return null; // opaque ink: no blending to do
    const ink = over([c[0], c[1], c[2], c[3] * ctx.op], bg);
    if (contrast(ink, bg) >= MIN_CONTRAST) return null;
    const stands = (s) => (s.match(/rgba?\([^)]*\)/g) || []).some((x) => {
      const k = rgba(x);
      return !k || (k[3] > 0 && contrast(over(k, bg), bg) >= MIN_CONTRAST);
    });
    if (cs.textShadow !== 'none' && stands(cs.textShadow)) return null;
    if (parseFloat(cs.webkitTextStrokeWidth) > 0 && stands(cs.webkitTextStrokeColor)) return null;
    return ink;
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
      if (p.image || !p.c || contrast(over(p.c, bg.c), ink) >= MIN_CONTRAST) return true;
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
    if (cs.visibility !== 'visible') return 'visibility';
    if (cs.display === 'contents') return '';
    const r = el.getBoundingClientRect();
    if (r.width < MIN_SEEN || r.height < MIN_SEEN) return 'zero-size';
    const b = fromRect(r);
    if (!seen(meet(b, n.self))) return seen(meet(b, doc(el.ownerDocument).page)) ? 'clipped' : 'off-page';
    return '';
  }

  // text is the text a person sees in el, laid out like innerText (blocks
  // on their own lines, <pre> kept), and how many text runs were dropped as
  // unseen. Unseen text inside a control (a visually-hidden label in a
  // button or link) stays, up to NAME_CAP characters per control: it is
  // the control's accessible name. A limit stops reading once that many
  // characters are in (names, descriptions). secret (optional) tells a
  // sensitive element (internal/sensitive), which reads •••• whole.
  function text(el, limit, secret) {
    begin();
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
      return (e.shadowRoot || e).childNodes;
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
        if (boxHidden(e, cs, ctx)) dropped++;
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
        else if (!textHidden(k, cs, ctx)) put(k.data, raw);
        else if (ctl && ctl.left > 0) {
          const s = clip(norm(k.data), ctl.left);
          ctl.left -= s.length;
          put(' ' + s + ' ', false);
        } else dropped++;
      }
      if (disp === 'table-cell') put('\t', true);
      if (block) brk = true;
    };
    const p = parentOf(el);
    walk(el, p ? context(p) : root(el.ownerDocument), null);
    return { text: out.replace(/[ \t]+$/gm, '').trim(), dropped };
  }

  globalThis.__gasolineVisible = { begin, root, context, enter, textHidden, boxHidden, text, parentOf, NAME_CAP };
})();
