// Gasoline's test of whether a person can see a piece of text, shared by
// every page script that hands page text to the agent: the snapshot walker
// (internal/snapshot), the action helpers (internal/actions: get_text and
// the names in answers) and the analyze modes. It runs in Gasoline's
// isolated world of a frame and installs globalThis.__gasolineVisible once.
//
// Text is unseen when: visibility is not visible; the opacity of it and its
// ancestors (filter: opacity() included) multiplies to under MIN_OPACITY;
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
  function rgba(s) {
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
    const f = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
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
      f = { view, page, canvas: canvas(d, rs), viewportEl: fromBody ? d.body : rootEl, range: null, painters: null };
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

  // A context is what an element's children inherit: the boxes that clip
  // in-flow, absolutely positioned and fixed children (viewport
  // coordinates), the opacity so far, the background colour behind (null:
  // unknown, an image) and the element that painted it, and hide, the
  // reason a whole subtree is unseen ('' when it is not).
  function root(d, outer) {
    const f = doc(d);
    const c = { flow: f.page, abs: f.page, fix: f.view, op: 1, bg: f.canvas, bgEl: null, hide: '', self: f.page };
    if (outer) Object.assign(c, { op: outer.op, bg: outer.bg, bgEl: null, hide: outer.hide });
    return c;
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
  // and its parent's context. c.self is the box that clips el itself.
  function enter(el, cs, ctx) {
    if (cs.display === 'contents') return { ...ctx, self: ctx.flow };
    const pos = cs.position;
    const base = pos === 'fixed' ? ctx.fix : pos === 'absolute' ? ctx.abs : ctx.flow;
    const n = { flow: base, abs: ctx.abs, fix: ctx.fix, op: ctx.op, bg: ctx.bg, bgEl: ctx.bgEl, hide: ctx.hide, self: base };
    let op = parseFloat(cs.opacity);
    if (cs.filter !== 'none') {
      const m = /opacity\(([\d.]+)(%?)\)/.exec(cs.filter);
      if (m) op *= m[2] ? m[1] / 100 : +m[1];
    }
    if (!Number.isNaN(op)) n.op *= op;
    if (!n.hide) {
      if (n.op < MIN_OPACITY) n.hide = 'opacity';
      else if (cs.contentVisibility === 'hidden') n.hide = 'content-visibility';
      else if (cs.clipPath !== 'none' && showsNothing(cs.clipPath, el)) n.hide = 'clip-path';
    }
    const d = doc(el.ownerDocument);
    const clips = (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') && el !== d.viewportEl && el !== el.ownerDocument.documentElement;
    const clipped = (pos === 'absolute' || pos === 'fixed') && cs.clip && cs.clip !== 'auto';
    let r = null;
    if (clips) {
      r = el.getBoundingClientRect();
      n.flow = meet(n.flow, overflowBox(el, cs, r));
    }
    const contain = cs.transform !== 'none' || cs.perspective !== 'none' || cs.filter !== 'none' ||
      /paint|layout|strict|content/.test(cs.contain) || /transform|perspective|filter/.test(cs.willChange);
    if (pos !== 'static' || contain) n.abs = n.flow;
    if (contain) n.fix = n.flow;
    if (clipped) {
      const c = clipBox(cs.clip, r || el.getBoundingClientRect());
      if (c) {
        n.flow = meet(n.flow, c);
        n.abs = meet(n.abs, c);
        n.fix = meet(n.fix, c);
      }
    }
    if (cs.backgroundImage !== 'none') {
      n.bg = null;
      n.bgEl = el;
    } else {
      const c = rgba(cs.backgroundColor);
      if (!c) {
        n.bg = null;
        n.bgEl = el;
      } else if (c[3] > 0) {
        n.bg = c[3] >= 1 ? c : n.bg && over(c, n.bg);
        n.bgEl = el;
      }
    }
    return n;
  }

  // overflowBox is what an overflow box lets show: its box where overflow
  // is hidden or clip, its scrollable area where a person can scroll.
  function overflowBox(el, cs, r) {
    const axis = (o, lo, hi, scrolled, size, len) => {
      if (o === 'visible') return [-Infinity, Infinity];
      if (o === 'hidden' || o === 'clip') return [lo, hi];
      return [lo - scrolled, lo - scrolled + Math.max(size, len)];
    };
    const x = axis(cs.overflowX, r.left, r.right, el.scrollLeft, el.scrollWidth, r.width);
    const y = axis(cs.overflowY, r.top, r.bottom, el.scrollTop, el.scrollHeight, r.height);
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

  function textBox(t) {
    const f = doc(t.ownerDocument);
    f.range ||= t.ownerDocument.createRange();
    f.range.selectNodeContents(t);
    return f.range.getBoundingClientRect();
  }

  // textHidden says why a person cannot see text node t, or ''. cs is the
  // computed style of the element it sits in and ctx that element's
  // context (from enter).
  function textHidden(t, cs, ctx) {
    if (ctx.hide) return ctx.hide;
    if (cs.visibility !== 'visible') return 'visibility';
    if (parseFloat(cs.fontSize) < MIN_FONT) return 'font-size';
    const r = textBox(t);
    if (r.width < MIN_SEEN || r.height < MIN_SEEN) return r.height > 0 && r.height < MIN_FONT ? 'font-size' : 'zero-size';
    const b = fromRect(r);
    if (!seen(meet(b, ctx.flow))) return seen(meet(b, doc(t.ownerDocument).page)) ? 'clipped' : 'off-page';
    return unseenColour(t, cs, ctx, b) ? 'colour' : '';
  }

  // unseenColour reports text drawn in (nearly) the colour behind it.
  function unseenColour(t, cs, ctx, b) {
    if (!ctx.bg) return false;
    const c = rgba(cs.webkitTextFillColor) || rgba(cs.color);
    if (!c) return false;
    const ink = over([c[0], c[1], c[2], c[3] * ctx.op], ctx.bg);
    if (contrast(ink, ctx.bg) >= MIN_CONTRAST) return false;
    const stands = (s) => (s.match(/rgba?\([^)]*\)/g) || []).some((x) => {
      const k = rgba(x);
      return !k || (k[3] > 0 && contrast(over(k, ctx.bg), ctx.bg) >= MIN_CONTRAST);
    });
    if (cs.textShadow !== 'none' && stands(cs.textShadow)) return false;
    if (parseFloat(cs.webkitTextStrokeWidth) > 0 && stands(cs.webkitTextStrokeColor)) return false;
    return !behind(t, b, ctx, ink);
  }

  // behind reports whether something besides the ancestors' background may
  // paint under text box b: a replaced element (image, video, canvas,
  // control), a background image, or a box of a colour the text stands out
  // from, overlapping b, or a pseudo-element's background on an ancestor.
  function behind(t, b, ctx, ink) {
    const anc = new Set();
    let stopped = false;
    for (let e = parentOf(t); e; e = parentOf(e)) {
      anc.add(e);
      if (!stopped && pseudoPaints(e, ink)) return true;
      if (e === ctx.bgEl) stopped = true;
    }
    const f = doc(t.ownerDocument);
    f.painters ||= painters(t.ownerDocument);
    for (const p of f.painters.list) {
      if (anc.has(p.el) || !overlaps(p.r, b)) continue;
      if (p.image || !p.c || contrast(over(p.c, ctx.bg), ink) >= MIN_CONTRAST) return true;
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
    if (n.hide && n.hide !== 'content-visibility') return n.hide;
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
  // characters are in (names, descriptions).
  function text(el, limit) {
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
      if (cs.display === 'none') return;
      const ctx = enter(e, cs, pctx);
      if (!ctl && e.matches(CONTROL)) ctl = { left: NAME_CAP };
      const disp = cs.display;
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
