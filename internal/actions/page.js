// Gasoline's in-page action helpers. The daemon runs this once in
// Gasoline's isolated world of a frame (the page's scripts cannot see or
// change it); actions then call globalThis.__gasolineActions.* with
// Runtime.callFunctionOn. Errors meant for the agent are thrown as JSON
// strings {code, message}. Text that names an element in an answer is the
// text a person sees (globalThis.__gasolineVisible, installed first:
// internal/visible).
(() => {
  if (globalThis.__gasolineActions) return;
  const V = globalThis.__gasolineVisible;
  // The sensitive selectors of this world (internal/sensitive), set by the
  // daemon when it installs the helpers and when the policy changes: a
  // sensitive element is described by its tag and id or class, never by
  // its text or a name taken from it, and text read to name or describe
  // anything reads •••• where a sensitive element sits.
  let secret = () => false;
  function setMask(sels) {
    secret = gasolineSecretTest(sels);
  }
  const isSecret = (el) => gasolineSecretIn(el, secret); // el or an element it sits in
  const secretSelf = (el) => secret(el); // el itself, for walks that stop there

  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  // clip never cuts inside a run that could be a secret (a token, a key, a
  // grouped number): the gateway redacts the answer afterwards and would
  // not recognise half of one. The same rule as internal/redact SafeCut.
  const clip = (s, n) => (s.length > n ? safeCut(s, n - 1).trimEnd() + '…' : s);
  const isTok = (c) => /[\w\-+/=.~%]/.test(c || '');
  const isDig = (c) => c >= '0' && c <= '9';
  const isSep = (c) => c === ' ' || c === '-';
  function safeCut(s, n) {
    let i = n;
    const run = isTok(s[i]) && isTok(s[i - 1]);
    const groups = (isDig(s[i - 1]) && isSep(s[i]) && isDig(s[i + 1])) || (isSep(s[i - 1]) && isDig(s[i - 2]) && isDig(s[i]));
    if (i <= 0 || (!run && !groups)) return s.slice(0, Math.max(i, 0));
    if (isSep(s[i - 1])) i--;
    let digits = true;
    while (i > 0 && isTok(s[i - 1])) {
      digits = digits && isDig(s[i - 1]);
      i--;
    }
    while (digits && i >= 2 && isSep(s[i - 1]) && isDig(s[i - 2])) {
      i--;
      while (i > 0 && isDig(s[i - 1])) i--;
    }
    return s.slice(0, i);
  }
  const fail = (code, message) => {
    throw JSON.stringify({ code, message });
  };
  const SKIP = new Set(['script', 'style', 'template', 'noscript', 'head', 'title', 'meta', 'link']);
  const INPUT_ROLES = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
  };
  const TAG_ROLES = {
    button: 'button', summary: 'button', textarea: 'textbox', option: 'option', li: 'listitem',
    ul: 'list', ol: 'list', nav: 'navigation', main: 'main', table: 'table', tr: 'row', td: 'cell',
    th: 'columnheader', dialog: 'dialog', fieldset: 'group', details: 'group', iframe: 'iframe',
    progress: 'progressbar', img: 'img', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading',
    h5: 'heading', h6: 'heading', aside: 'complementary', article: 'article', p: 'paragraph',
  };
  const FROM_CONTENT = new Set([
    'button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'gridcell', 'checkbox', 'radio',
    'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'switch', 'tooltip',
  ]);
  const CLICKABLE = 'button, a[href], label, summary, select, option, input, textarea, [role=button], ' +
    '[role=link], [role=tab], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], ' +
    '[role=option], [role=checkbox], [role=radio], [role=switch], [role=treeitem]';

  // all lists the elements under root in document order, entering open
  // shadow roots.
  function all(root) {
    const out = [];
    const walk = (node) => {
      for (let el = node.firstElementChild; el; el = el.nextElementSibling) {
        if (SKIP.has(el.localName)) continue;
        out.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
        walk(el);
      }
    };
    walk(root);
    return out;
  }

  function contains(a, b) {
    for (let n = b; n; n = n.parentNode || n.host) if (n === a) return true;
    return false;
  }

  function roleOf(el) {
    const r = el.getAttribute('role');
    if (r) return r.trim().split(/\s+/)[0].toLowerCase();
    const tag = el.localName;
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'input') {
      const t = (el.type || 'text').toLowerCase();
      if (t === 'hidden') return '';
      return INPUT_ROLES[t] || (el.hasAttribute('list') ? 'combobox' : 'textbox');
    }
    if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (el.isContentEditable && !el.parentElement?.isContentEditable) return 'textbox';
    return TAG_ROLES[tag] || '';
  }

  function byIds(el, ids) {
    const root = el.getRootNode();
    return ids.trim().split(/\s+/).map((id) => root.getElementById?.(id) || el.ownerDocument.getElementById(id)).filter(Boolean);
  }

  function labelOf(el) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const s = norm(byIds(el, lb).map((e) => e.textContent).join(' '));
      if (s) return s;
    }
    const al = el.getAttribute('aria-label');
    if (al && al.trim()) return norm(al);
    if (el.labels && el.labels.length) {
      const s = norm([...el.labels].map((l) => textWithout(l, el)).join(' '));
      if (s) return s;
    }
    return '';
  }

  // textWithout is a label's text without the control it holds.
  function textWithout(label, control) {
    let s = '';
    for (const n of label.childNodes) {
      if (n === control) continue;
      if (n.nodeType === 3) s += n.data;
      else if (n.nodeType === 1 && !['input', 'select', 'textarea'].includes(n.localName)) s += ' ' + n.textContent + ' ';
    }
    return s;
  }

  function nameOf(el, role) {
    const l = labelOf(el);
    if (l) return l;
    const tag = el.localName;
    if (tag === 'input' && ['submit', 'reset', 'button'].includes(el.type)) {
      return el.value || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : '');
    }
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return el.getAttribute('title') || el.getAttribute('placeholder') || '';
    if (tag === 'img') return el.getAttribute('alt') || el.getAttribute('title') || '';
    if (tag === 'fieldset') return norm(el.querySelector(':scope > legend')?.textContent);
    if (tag === 'iframe') return el.getAttribute('title') || el.getAttribute('name') || '';
    if (FROM_CONTENT.has(role || roleOf(el))) return norm(V.text(el, 400, secret).text) || el.getAttribute('title') || '';
    return el.getAttribute('title') || '';
  }

  // describe names an element for the agent: button "Save", or for a
  // generic element its tag with an id, a class or its text.
  function describe(el) {
    if (!el || el.nodeType !== 1) return el && el.nodeType === 9 ? 'document' : 'nothing';
    if (isSecret(el) && !el.labels?.length) {
      const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
      return el.localName + (el.id ? ` "${clip(el.id, 40)}"` : cls ? ` "${clip(cls, 40)}"` : '');
    }
    const role = roleOf(el);
    const name = clip(norm(nameOf(el, role)), 60);
    if (role && role !== 'paragraph' && role !== 'listitem' && role !== 'cell') return name ? `${role} "${name}"` : role;
    const id = el.id ? el.id : typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
    if (id) return `${el.localName} "${clip(id, 40)}"`;
    const text = clip(norm(V.text(el, 80, secret).text), 40);
    return el.localName + (text ? ` "${text}"` : '');
  }

  // seen names el for a person deciding whether to let an action on it
  // run: its role and the text drawn in it, and its accessible name too
  // when that says something else (an aria-label that hides what the
  // button shows): button showing "Transfer $5,000" (labelled "Close").
  // A form control shows its visible label (or placeholder) as its text.
  function seen(el) {
    if (!el || el.nodeType !== 1 || isSecret(el)) return describe(el);
    const role = roleOf(el) || el.localName;
    const name = clip(norm(nameOf(el, role)), 200);
    let text;
    if (el.matches(CONTROLS) && !FROM_CONTENT.has(role)) {
      const labels = el.labels ? [...el.labels].map((l) => textWithout(l, el)).join(' ') : '';
      text = norm(labels) || el.getAttribute('placeholder') || '';
    } else {
      text = norm(V.text(el, 400, secret).text);
      if (!text && el.localName === 'input' && ['submit', 'reset', 'button'].includes(el.type)) text = el.value;
    }
    text = clip(norm(text), 200);
    const q = (s) => JSON.stringify(s);
    if (!text || text.toLowerCase() === name.toLowerCase()) return name ? `${role} ${q(name)}` : describe(el);
    if (!name) return `${role} showing ${q(text)}`;
    return `${role} showing ${q(text)} (labelled ${q(name)})`;
  }

  // effect says what activating el does, for the approval gate (read
  // only): how is 'click' (a click, or a key that activates it), 'enter'
  // (Enter in a field also submits its form) or 'submit' (fill_form
  // submits the form of its field). It reads what the
  // page declares — the form a button submits and where to, a link's
  // address and download attribute — through the prototypes of this
  // world, so a form control named "action" cannot stand in for the
  // form's action. What the page's own script does on the click is not
  // seen.
  const attr = (el, n) => Element.prototype.getAttribute.call(el, n);
  const IMPLICIT = new Set(['text', 'search', 'url', 'tel', 'email', 'password', 'date', 'month', 'week', 'time', 'datetime-local', 'number']);
  const FRAMES = new Set(['iframe', 'frame', 'object', 'embed']);
  function effect(el, how) {
    const out = { found: !!el };
    if (!el || el.nodeType !== 1) return out;
    if (FRAMES.has(el.localName)) {
      out.frame = true;
      return out;
    }
    let form = null;
    let sub = null;
    const b = el.closest('button, input[type=submit i], input[type=image i]');
    if (b && !b.disabled && b.form && (b.localName !== 'button' || b.type === 'submit')) [form, sub] = [b.form, b];
    if (!form && how === 'enter' && el.localName === 'input' && el.form && IMPLICIT.has(el.type)) form = el.form;
    if (!form && how === 'submit' && el.form) {
      form = el.form; // fill_form's submit: the form's submit button, or requestSubmit
      sub = form.querySelector('button[type=submit], input[type=submit], input[type=image], button:not([type])');
    }
    const method = (sub && attr(sub, 'formmethod')) || (form && attr(form, 'method')) || '';
    if (form && method.toLowerCase() !== 'dialog') {
      out.submits = true;
      const act = sub && sub.hasAttribute('formaction') ? attr(sub, 'formaction') : attr(form, 'action');
      try {
        out.action = new URL(act || '', document.baseURI).href;
      } catch {
        out.action = document.baseURI;
      }
      out.form = clip(norm(attr(form, 'aria-label') || attr(form, 'name') || attr(form, 'id') || ''), 60);
    }
    const a = el.closest('a[href], area[href]');
    if (a) {
      try {
        out.href = new URL(attr(a, 'href'), document.baseURI).href;
      } catch {
        out.href = '';
      }
      out.download = a.hasAttribute('download');
    }
    return out;
  }

  // focused is the element keys go to: the active element, through open
  // shadow roots.
  function focused() {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    return el === document.body || el === document.documentElement ? null : el;
  }

  // sees names el and says what activating it does (the gate's one round
  // trip): el, the focused element when null and at is unset, or the
  // element drawn at the point at.
  function sees(el, how, at) {
    if (!el) el = at ? document.elementFromPoint(at[0], at[1]) : focused();
    return { d: el ? seen(el) : '', e: how ? effect(el, how) : { found: !!el } };
  }

  function visible(el) {
    if (!el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  // tiers ranks candidates: exact text, case-insensitive exact, substring.
  function tiers(items, textOf, want, exact) {
    const w = norm(want);
    const lw = w.toLowerCase();
    const t = [[], [], []];
    for (const el of items) {
      const s = norm(textOf(el));
      if (!s) continue;
      if (s === w) t[0].push(el);
      else if (exact) continue;
      else if (s.toLowerCase() === lw) t[1].push(el);
      else if (s.toLowerCase().includes(lw)) t[2].push(el);
    }
    return t;
  }

  // texts maps each element under root to its rendered text: text nodes
  // of visible elements, without scripts and styles, through open shadow
  // roots; a button-like input counts its value.
  function texts(root) {
    const m = new Map();
    const walk = (node) => {
      let s = '';
      for (let n = node.firstChild; n; n = n.nextSibling) {
        if (n.nodeType === 3) s += n.data;
        else if (n.nodeType === 1 && !SKIP.has(n.localName)) s += walkEl(n);
      }
      return s;
    };
    const walkEl = (el) => {
      let s = el.shadowRoot ? walk(el.shadowRoot) : '';
      s += walk(el);
      if (el.localName === 'input' && ['submit', 'button', 'reset'].includes(el.type)) s = el.value;
      if (el.hidden || (el.checkVisibility && !el.checkVisibility())) s = '';
      m.set(el, s);
      return /^(div|p|li|tr|td|th|h[1-6]|section|article|br|label|button)$/.test(el.localName) ? ' ' + s + ' ' : s;
    };
    walk(root);
    return m;
  }

  // deepest keeps the matches that hold no other match.
  const deepest = (els) => els.filter((a) => !els.some((b) => b !== a && contains(a, b)));
  const climb = (el) => el.closest(CLICKABLE) || el;
  const CONTROLS = 'input:not([type=hidden]), textarea, select, [contenteditable=""], [contenteditable=true], ' +
    '[role=textbox], [role=combobox], [role=searchbox], [role=checkbox], [role=radio], [role=switch], [role=slider], [role=spinbutton], [role=listbox]';

  function candidates(root, q) {
    switch (q.kind) {
      case 'css': {
        let els;
        try {
          els = [...root.querySelectorAll(q.value)];
        } catch (e) {
          fail('invalid_selector', `${JSON.stringify(q.value)} is not a valid CSS selector (${e.message.split('\n')[0]}); semantic forms are text=, role=, label=, placeholder=`);
        }
        if (!els.length) els = all(root).filter((el) => el.matches(q.value));
        return [els];
      }
      case 'text': {
        const m = texts(root);
        return tiers([...m.keys()], (el) => m.get(el), q.value, q.exact).map((t) => uniq(deepest(t).map(climb)));
      }
      case 'label':
        return tiers(all(root).filter((el) => el.matches(CONTROLS) || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')),
          labelOf, q.value, q.exact);
      case 'placeholder':
        return tiers(all(root).filter((el) => el.hasAttribute('placeholder') || el.hasAttribute('aria-placeholder')),
          (el) => el.getAttribute('placeholder') || el.getAttribute('aria-placeholder'), q.value, q.exact);
      case 'role': {
        const els = all(root).filter((el) => roleOf(el) === q.role);
        return q.name ? tiers(els, (el) => nameOf(el, q.role), q.name, q.exact) : [els];
      }
    }
    fail('invalid_selector', 'unknown selector kind ' + q.kind);
  }
  const uniq = (els) => [...new Set(els)];

  // matches returns the candidates of the best tier, visible ones first.
  function matches(root, q) {
    for (const tier of candidates(root, q)) {
      if (!tier.length) continue;
      const vis = tier.filter(visible);
      return { vis, hidden: tier.filter((el) => !vis.includes(el)) };
    }
    return { vis: [], hidden: [] };
  }

  function find(q, strict, rootEl) {
    const root = rootEl || document;
    const { vis, hidden } = matches(root, q);
    const els = vis.concat(hidden);
    if (!els.length) fail('not_found', `no element matches ${q.text}`);
    if (q.nth >= 0) {
      if (q.nth >= els.length) fail('not_found', `${q.text} matches ${els.length} element(s); nth=${q.nth} is out of range`);
      return els[q.nth];
    }
    if (strict && q.kind !== 'css' && vis.length > 1) {
      const list = vis.slice(0, 5).map(describe).join(', ');
      fail('ambiguous_target', `${q.text} matches ${vis.length} visible elements (${list}${vis.length > 5 ? ', …' : ''}); ` +
        `use a ref from observe snapshot, a more specific selector, or add ">> nth=N"`);
    }
    return els[0];
  }

  function query(q, limit) {
    const { vis, hidden } = matches(document, q);
    const els = vis.concat(hidden);
    return { count: els.length, items: els.slice(0, limit).map((el) => ({ desc: describe(el), visible: vis.includes(el) })) };
  }

  // frame finds an iframe by CSS selector, name, id or URL substring.
  function frame(spec) {
    const isFrame = (el) => el && (el.localName === 'iframe' || el.localName === 'frame');
    let el = null;
    try {
      el = [...document.querySelectorAll(spec)].find(isFrame) || null;
    } catch {}
    const frames = all(document).filter(isFrame);
    el ||= frames.find((f) => f.name === spec || f.id === spec) || frames.find((f) => f.src && f.src.includes(spec));
    if (!el) fail('not_found', `no iframe matches ${JSON.stringify(spec)} (by selector, name, id or URL); observe snapshot lists the frames`);
    return el;
  }

  const editable = (el) =>
    el.isContentEditable || (el.localName === 'textarea' && !el.readOnly) ||
    (el.localName === 'input' && !el.readOnly && !['checkbox', 'radio', 'submit', 'button', 'reset', 'file', 'image', 'range', 'color', 'hidden'].includes(el.type));

  // point scrolls el into view (instantly, only when needed) and returns a
  // point inside its first visible box, in its frame's viewport.
  function point(el) {
    const view = el.ownerDocument.defaultView;
    const box = () => {
      const vw = view.innerWidth;
      const vh = view.innerHeight;
      for (const r of el.getClientRects()) {
        if (r.width <= 0 || r.height <= 0) continue;
        const x1 = Math.max(r.left, 0), y1 = Math.max(r.top, 0);
        const x2 = Math.min(r.right, vw), y2 = Math.min(r.bottom, vh);
        const inside = r.left >= 0 && r.top >= 0 && r.right <= vw && r.bottom <= vh;
        if (x2 > x1 && y2 > y1) return { x: (x1 + x2) / 2, y: (y1 + y2) / 2, inside };
      }
      return null;
    };
    let b = box();
    if (!b || !b.inside) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      b = box();
    }
    return b;
  }

  // prepare checks el for an action and, with o.point, scrolls it into view
  // and returns its center.
  function prepare(el, o) {
    const r = {
      desc: describe(el), tag: el.localName, type: el.type || '', visible: visible(el),
      disabled: !!(el.disabled || el.closest?.('[aria-disabled=true]') || el.closest?.('fieldset:disabled')),
      editable: editable(el), checked: null, inMain: el.ownerDocument === document,
    };
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) r.checked = el.checked;
    if (el.getAttribute('aria-checked')) r.checked = el.getAttribute('aria-checked') === 'true';
    if (o && o.point && r.visible) {
      const p = point(el);
      if (p) Object.assign(r, { x: p.x, y: p.y });
    }
    r.hidden = document.visibilityState === 'hidden';
    r.u = location.href;
    r.t = document.title;
    r.sx = el.ownerDocument.defaultView.scrollX;
    r.sy = el.ownerDocument.defaultView.scrollY;
    if (o && o.label && !r.visible && el.labels?.length) r.label = true;
    return r;
  }

  // inside reports whether b is a or in a's flat tree: a descendant, in a
  // shadow root a hosts, or slotted into a slot inside a.
  function inside(a, b) {
    for (let n = b; n; n = n.assignedSlot || n.parentNode || n.host) if (n === a) return true;
    return false;
  }

  // localPoint turns a point of the viewport of the target's session into
  // one of the target's own frame (same-process frames between them).
  function localPoint(doc, x, y) {
    const frames = [];
    for (let w = doc.defaultView; w && w.parent !== w; w = w.parent) {
      if (!w.frameElement) return null;
      frames.push(w.frameElement);
    }
    for (const fe of frames.reverse()) {
      const r = fe.getBoundingClientRect();
      const cs = getComputedStyle(fe);
      x -= r.left + fe.clientLeft + parseFloat(cs.paddingLeft);
      y -= r.top + fe.clientTop + parseFloat(cs.paddingTop);
    }
    return [x, y];
  }

  // deepAt is the element a person sees at a point: elementFromPoint
  // (which answers a pseudo-element's own element), then into open shadow
  // roots.
  function deepAt(doc, x, y) {
    let e = doc.elementFromPoint(x, y);
    for (let n; e && e.shadowRoot && (n = e.shadowRoot.elementFromPoint(x, y)) && n !== e; ) e = n;
    return e;
  }

  // hit reports what covers target at a point ('' when what is there is
  // the target, inside it, or its label). h is the node CDP's hit test
  // found (null when it could not be resolved: a pseudo-element); x, y
  // the point in the viewport of the target's session. A pseudo-element
  // or text node counts as its element, so an icon (<i> drawn by ::before)
  // inside a button is the button.
  function hit(target, h, x, y) {
    if (h && h.nodeType === 3) h = h.parentElement;
    if (h && h.nodeType === 1 && inside(target, h)) return '';
    const p = typeof x === 'number' ? localPoint(target.ownerDocument, x, y) : null;
    const d = p && deepAt(target.ownerDocument, p[0], p[1]);
    if (d) h = d;
    if (!h || h.nodeType !== 1 || inside(target, h)) return '';
    const label = h.closest?.('label');
    if (label && (label.control === target || inside(label, target))) return '';
    if (target.localName === 'label' && target.control && inside(target.control, h)) return '';
    let desc = place(h);
    for (let q = h.parentElement; q; q = q.parentElement) {
      const pos = getComputedStyle(q).position;
      if ((pos === 'fixed' || pos === 'absolute' || pos === 'sticky') && (q.id || q.getAttribute('role') || q.className)) {
        if (q !== h) desc += ' in ' + describe(q);
        break;
      }
    }
    return desc;
  }

  // place names where a pointer event landed: describe, but the page's
  // root or body (no element of it) as its background, not by its text.
  function place(h) {
    const d = h && h.ownerDocument;
    return d && (h === d.documentElement || h === d.body) ? "the page's background" : describe(h);
  }

  // hovered is the innermost element under the pointer in doc (through
  // open shadow roots; :hover holds the chain from the root down), or null
  // when the pointer is not over doc.
  function hovered(doc) {
    let h = null;
    for (let root = doc, list; root && (list = root.querySelectorAll(':hover')).length; root = h.shadowRoot) h = list[list.length - 1];
    return h;
  }

  // pointed reports where the pointer is, seen from target's document:
  // '' on the target (in it, or on its label), else what it is on, or null
  // when it is not over the document. Chrome updates :hover as it
  // dispatches a mouse event, whatever the page's listeners do with it.
  function pointed(target) {
    if (target.matches(':hover')) return '';
    const h = hovered(target.ownerDocument);
    return h ? hit(target, h) : null;
  }

  globalThis.__gasolineActions = { all, contains, describe, effect, find, frame, hit, hovered, place, pointed, labelOf, nameOf, prepare, query, roleOf, seen, sees, visible, editable, norm, clip, fail, setMask, isSecret, secretSelf };
})();
