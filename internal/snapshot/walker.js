// Gasoline's accessibility walker. The daemon runs this function with
// Runtime.callFunctionOn in Gasoline's isolated world of a frame (the page's
// own scripts cannot see or change it), once per snapshot. It computes ARIA
// roles, accessible names and states for the rendered DOM, flattens generic
// wrappers, walks open shadow roots and same-origin iframes inline, and
// returns one record a line: depth \t role \t name \t attrs \t ref \t text.
// Refs are numbered per element and stay the same across snapshots (a
// WeakMap in this world); the daemon passes the next free number in.
// Text a person cannot see (globalThis.__gasolineVisible, installed before
// this function runs: internal/visible) is left out and counted in hidden;
// unseen text inside a control still names it, capped at V.NAME_CAP.
function gasolineSnapshot(opts) {
  const t0 = performance.now();
  const V = globalThis.__gasolineVisible;
  V.begin(true); // the walk only reads the page: contexts may be kept
  let hidden = 0;
  // drewText: text of the main document's body was shown (walkCallJS then
  // knows the page has rendered without asking).
  let drewText = false;
  const body = document.body;
  const drew = (n) => {
    if (!drewText && body && n.ownerDocument === document && body.contains(n)) drewText = true;
  };
  const drop = (why) => {
    hidden++;
    V.count(why);
  };
  const W = (globalThis.__gasoline ??= { ids: new WeakMap(), byN: new Map() });
  if (opts.reset) W.byN = new Map();
  let next = opts.next;
  const maxName = opts.maxName || 100;
  const maxText = opts.maxText || 200;
  const maxOptions = 25;
  // Sensitive elements (internal/sensitive): a form control keeps its role,
  // name and ref with its value as ••••; any other element reads as ••••,
  // nothing of what it holds walked.
  const secret = gasolineSecretTest(opts.mask);
  const MASKED = '••••';
  const CONTROLS = new Set(['input', 'textarea', 'select']);
  const SKIP = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base']);
  const INTERACTIVE = new Set([
    'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider', 'spinbutton',
    'treeitem', 'gridcell', 'iframe'
  ]);
  const NOREF = new Set([
    'cell', 'columnheader', 'rowheader', 'row', 'listitem', 'paragraph', 'text', 'caption', 'term',
    'definition', 'generic', 'rowgroup', 'option', 'group', 'list', 'blockquote', 'code', 'status',
    'separator'
  ]);
  const FROM_CONTENT = new Set([
    'button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'gridcell', 'checkbox',
    'radio', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem',
    'switch', 'tooltip', 'caption', 'term'
  ]);
  const NAMING = { caption: 'table', legend: 'fieldset', figcaption: 'figure' };
  const LEAF = new Set(['textarea', 'input', 'img', 'svg', 'select']);
  const LANDMARK_SCOPE = 'article,aside,main,nav,section';
  const TAGS = {
    nav: 'navigation', main: 'main', aside: 'complementary', article: 'article', search: 'search',
    ul: 'list', ol: 'list', menu: 'list', li: 'listitem', dt: 'term', dd: 'definition',
    table: 'table', caption: 'caption', tr: 'row', p: 'paragraph', blockquote: 'blockquote',
    dialog: 'dialog', hr: 'separator', progress: 'progressbar', meter: 'meter', output: 'status',
    fieldset: 'group', details: 'group', figure: 'figure', textarea: 'textbox', button: 'button',
    optgroup: 'group', option: 'option', iframe: 'iframe', frame: 'iframe', summary: 'button',
    code: 'code', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
  };
  const INPUTS = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', color: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
  };

  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1).trimEnd() + '…' : s);
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const attr = (el, a) => el.getAttribute(a);
  const getAttr = attr;
  const none = () => null;

  function deepActive(doc) {
    let a = doc.activeElement;
    for (;;) {
      if (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
      else if (a?.localName === 'iframe' && a.contentDocument?.activeElement) a = a.contentDocument.activeElement;
      else return a;
    }
  }
  const focused = deepActive(document);

  function roleOf(el, tag, has) {
    const explicit = has && attr(el, 'role');
    if (explicit) {
      const r = explicit.trim().split(/\s+/)[0];
      return r === 'none' || r === 'presentation' ? '' : r;
    }
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'input') {
      const t = (el.type || 'text').toLowerCase();
      if (t === 'hidden') return null;
      if (INPUTS[t]) return t === 'search' && el.hasAttribute('list') ? 'combobox' : INPUTS[t];
      return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
    if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'img') return attr(el, 'alt') === '' ? '' : 'img';
    if (tag === 'svg') return attr(el, 'aria-label') || attr(el, 'aria-labelledby') ? 'img' : null;
    if (tag === 'th' || tag === 'td' || tag === 'tr') {
      const kind = tableKind(el);
      if (kind === 'layout') return '';
      if (tag === 'tr') return 'row';
      if (tag === 'td') return kind === 'grid' ? 'gridcell' : 'cell';
      return has && attr(el, 'scope') === 'row' ? 'rowheader' : 'columnheader';
    }
    if (tag === 'header' || tag === 'footer') {
      if (el.parentElement?.closest(LANDMARK_SCOPE)) return '';
      return tag === 'header' ? 'banner' : 'contentinfo';
    }
    if (tag === 'section' || tag === 'form') {
      return attr(el, 'aria-label') || attr(el, 'aria-labelledby') || attr(el, 'title') ? (tag === 'form' ? 'form' : 'region') : '';
    }
    if (has && el.hasAttribute('contenteditable') && el.isContentEditable && !el.parentElement?.isContentEditable) return 'textbox';
    return TAGS[tag] || '';
  }

  // tableKind is 'grid' for an ARIA grid, 'layout' for a presentational
  // table (its rows and cells have no role either), else ''.
  const tables = new Map();
  function tableKind(cell) {
    const t = cell.closest('table');
    if (!t) return '';
    let k = tables.get(t);
    if (k === undefined) {
      const r = t.getAttribute('role');
      k = r === 'grid' || r === 'treegrid' ? 'grid' : r === 'none' || r === 'presentation' ? 'layout' : '';
      tables.set(t, k);
    }
    return k;
  }

  // textOf is the text an element contributes to a name by reference
  // (aria-labelledby, label): text, alt, skipping controls and aria-hidden.
  function textOf(node, skip) {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 || node === skip || SKIP.has(node.localName)) return '';
    if (attr(node, 'aria-hidden') === 'true') return '';
    const tag = node.localName;
    if (tag === 'img') return ' ' + (attr(node, 'alt') || '') + ' ';
    if (tag === 'select' || tag === 'textarea' || tag === 'input') return '';
    if (attr(node, 'aria-label')) return ' ' + attr(node, 'aria-label') + ' ';
    let s = '';
    for (let c = node.firstChild; c; c = c.nextSibling) s += textOf(c, skip);
    return s;
  }

  function byIds(el, ids) {
    const root = el.getRootNode();
    return ids.trim().split(/\s+/).map((id) => root.getElementById?.(id) || el.ownerDocument.getElementById(id)).filter(Boolean);
  }

  // unseen reports elements that show a person no text (a hidden label
  // an element is named by).
  const unseen = (els) => els.length > 0 && els.every((e) => !V.text(e, 200, null, true).text);
  let nameUnseen = false;

  // authorName is every name that does not come from content. A name
  // taken from elements no person sees is capped at V.NAME_CAP and sets
  // nameUnseen (the node is marked [name not visible]).
  function authorName(el, tag, role) {
    const attr = el.hasAttributes() ? getAttr : none;
    nameUnseen = false;
    const lb = attr(el, 'aria-labelledby');
    if (lb) {
      const refs = byIds(el, lb);
      const s = norm(refs.map((e) => textOf(e, null)).join(' '));
      if (s && unseen(refs)) {
        nameUnseen = true;
        return clip(s, V.NAME_CAP);
      }
      if (s) return s;
    }
    const al = attr(el, 'aria-label');
    if (al && al.trim()) return norm(al);
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      const t = el.type;
      if (t === 'submit' || t === 'reset' || t === 'button') return el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
      if (t === 'image') return attr(el, 'alt') || 'Submit';
      const s = el.labels ? norm([...el.labels].map((l) => textOf(l, el)).join(' ')) : '';
      if (s && unseen([...el.labels])) {
        nameUnseen = true;
        return clip(s, V.NAME_CAP);
      }
      return s || attr(el, 'title') || attr(el, 'placeholder') || '';
    }
    if (tag === 'img' || tag === 'area') return attr(el, 'alt') || attr(el, 'title') || '';
    if (tag === 'fieldset') return norm(el.querySelector(':scope > legend')?.textContent || '');
    if (tag === 'table') return norm(el.querySelector(':scope > caption')?.textContent || '');
    if (tag === 'figure') return norm(el.querySelector(':scope > figcaption')?.textContent || '');
    if (tag === 'iframe') return attr(el, 'title') || attr(el, 'name') || '';
    if (tag === 'svg') return norm(el.querySelector(':scope > title')?.textContent || '');
    if (FROM_CONTENT.has(role)) return '';
    return attr(el, 'title') || '';
  }

  function states(el, tag, role) {
    const s = [];
    const attr = el.hasAttributes() ? getAttr : none;
    if (role === 'heading') s.push('level=' + (attr(el, 'aria-level') || tag.slice(1)));
    const ac = attr(el, 'aria-checked');
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.indeterminate) s.push('checked=mixed');
      else if (el.checked) s.push('checked');
    } else if (ac === 'true') s.push('checked');
    else if (ac === 'mixed') s.push('checked=mixed');
    const ap = attr(el, 'aria-pressed');
    if (ap === 'true') s.push('pressed');
    else if (ap === 'mixed') s.push('pressed=mixed');
    if (attr(el, 'aria-selected') === 'true') s.push('selected');
    const ae = tag === 'summary' && el.parentElement?.localName === 'details' ? String(el.parentElement.open) : attr(el, 'aria-expanded');
    if (ae === 'true') s.push('expanded');
    else if (ae === 'false') s.push('expanded=false');
    if (attr(el, 'aria-disabled') === 'true' || ('disabled' in el && el.matches(':disabled'))) s.push('disabled');
    if (el.required || attr(el, 'aria-required') === 'true') s.push('required');
    if (el.readOnly && INTERACTIVE.has(role)) s.push('readonly');
    const cur = attr(el, 'aria-current');
    if (cur && cur !== 'false') s.push('current');
    if (el === focused) s.push('focused');
    return s;
  }

  function value(el, tag, role, masked) {
    if (tag === 'select') return masked ? (el.selectedOptions.length ? MASKED : '') : [...el.selectedOptions].map((o) => norm(o.text)).join(', ');
    if (tag === 'textarea' || (tag === 'input' && (role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'slider' || role === 'spinbutton'))) {
      return masked || el.type === 'password' ? (el.value ? MASKED : '') : norm(el.value || '');
    }
    return '';
  }

  function refOf(el) {
    let n = W.ids.get(el);
    if (n === undefined) {
      n = next++;
      W.ids.set(el, n);
    }
    W.byN.set(n, new WeakRef(el));
    return n;
  }

  function pushText(into, s) {
    if (typeof into[into.length - 1] === 'string') into[into.length - 1] += s;
    else into.push(s);
  }

  function children(el) {
    if (el.shadowRoot) return el.shadowRoot;
    if (el.localName === 'slot') {
      const a = el.assignedNodes({ flatten: true });
      if (a.length) return a;
    }
    return el;
  }

  function walkKids(el, into, ctx) {
    const src = children(el);
    if (Array.isArray(src)) for (const c of src) visit(c, into, ctx);
    else for (let c = src.firstChild; c; c = c.nextSibling) visit(c, into, ctx);
  }

  function selectOptions(el, node) {
    let i = 0;
    for (const o of el.options) {
      if (i++ === maxOptions) {
        node.kids.push({ role: 'text', name: '', attrs: [], ref: 0, text: `… ${el.options.length - maxOptions} more options`, kids: [] });
        break;
      }
      node.kids.push({ role: 'option', name: clip(norm(o.text), maxName), attrs: o.selected ? ['selected'] : [], ref: 0, text: '', kids: [] });
    }
  }

  // visit walks node n into the list into. ctx: dropText (a label's text,
  // already its control's name), cs and v (the computed style and the
  // visibility context of the element n sits in), ctl (the budget of unseen
  // text the enclosing control's name may still take, or null).
  function visit(n, into, ctx) {
    if (n.nodeType === 3) {
      if (ctx.dropText) return;
      const words = /\S/.test(n.data);
      const why = words ? V.textHidden(n, ctx.cs, ctx.v) : '';
      if (!why) {
        if (words) drew(n);
        return pushText(into, n.data);
      }
      if (ctx.ctl && ctx.ctl.left > 0) {
        const s = clip(norm(n.data), ctx.ctl.left);
        ctx.ctl.left -= s.length;
        into.push({ hid: s, why: why.why || why, kids: [] }); // names the control only; never printed
      } else if (typeof why === 'object') {
        drew(n);
        pushText(into, ' ' + why.keep + ' '); // the part that shows
        drop(why.why);
      } else drop(why);
      return;
    }
    if (n.nodeType !== 1) return;
    const tag = n.localName;
    if (SKIP.has(tag)) return;
    if (tag === 'br') return pushText(into, ' ');
    const has = n.hasAttributes();
    if (has && (attr(n, 'aria-hidden') === 'true' || n.hasAttribute('inert'))) return;
    const named = NAMING[tag] && n.parentElement;
    if (named && named.localName === NAMING[tag] && !named.hasAttribute('aria-label') && !named.hasAttribute('aria-labelledby')) return;
    const cs = getComputedStyle(n);
    const display = cs.display;
    if (display === 'none') return;
    const visibility = cs.visibility;
    const v = V.enter(n, cs, ctx.v, display, visibility);
    const shown = visibility === 'visible';
    const masked = ctx.secret || secret(n, cs);
    if (masked && !CONTROLS.has(tag)) {
      if (shown) pushText(into, ' ' + MASKED + ' ');
      return;
    }
    let role = shown ? roleOf(n, tag, has) : '';
    if (role === null) return;
    const tabbable = has && n.hasAttribute('tabindex') && n.tabIndex >= 0;
    const focusable = !role && shown && has && (tabbable || n.hasAttribute('onclick'));
    if (focusable) role = 'generic';
    if (!role) {
      const block = !display.startsWith('inline');
      if (block) pushText(into, ' ');
      const kctx = { ...ctx, cs, v };
      if (tag === 'label' && n.control && n.control !== n) kctx.dropText = true;
      walkKids(n, into, kctx);
      if (block) pushText(into, ' ');
      return;
    }
    const node = { role, name: clip(authorName(n, tag, role), maxName), attrs: states(n, tag, role), ref: 0, text: '', kids: [], el: n, masked };
    if (nameUnseen) node.attrs.push('name-not-visible');
    node.act = (INTERACTIVE.has(role) && !(role === 'option' && tag === 'option')) || focusable || tabbable;
    const frame = tag === 'iframe' || tag === 'frame';
    const h0 = hidden;
    const boxWhy = ((node.name && !node.act) || frame) && !ctx.ctl ? V.boxHidden(n, cs, v) : '';
    if (boxWhy) {
      drop(boxWhy);
      if (frame) return; // nothing in a frame nobody sees reaches the agent
      node.name = ''; // an unseen region's or image's name (a control keeps its name, capped at maxName)
    }
    const ctl = node.act && FROM_CONTENT.has(role) ? { left: V.NAME_CAP } : ctx.ctl;
    const kctx = { ...ctx, dropText: false, cs, v, ctl };
    if (tag === 'select') {
      if (!masked) selectOptions(n, node);
    }
    else if (frame) {
      let doc = null;
      try {
        doc = n.contentDocument;
      } catch {}
      if (doc?.body) walkKids(doc.body, node.kids, { ...kctx, cs: getComputedStyle(doc.body), v: V.context(doc.body, v) });
      else node.attrs.push('remote');
    } else if (tag === 'details' && !n.open) {
      const sum = n.querySelector(':scope > summary');
      if (sum) visit(sum, node.kids, kctx);
    } else if (!LEAF.has(tag)) {
      walkKids(n, node.kids, kctx);
    }
    finish(node, tag, n);
    if (role === 'img' && !node.name) return; // an unnamed image says nothing
    if (hidden > h0 && !node.act && !node.name && !node.text && !node.kids.length) return; // all it held is unseen
    into.push(node);
  }

  function flat(item) {
    if (typeof item === 'string') return item;
    if (item.hid !== undefined) return ' ' + item.hid + ' ';
    if (item.role === 'img' || item.role === 'textbox' || item.role === 'combobox') return ' ' + item.name + ' ';
    return item.name && !item.nfc ? ' ' + item.name + ' ' : ' ' + item.text + ' ' + item.kids.map(flat).join('') + ' ';
  }

  // A link or button keeps its children only when they hold controls.
  const hasAct = (item) => typeof item !== 'string' && (item.act || item.kids.some(hasAct));

  function finish(node, tag, el) {
    const kids = [];
    for (const k of node.kids) {
      if (typeof k !== 'string') kids.push(k);
      else if (norm(k)) kids.push(k);
    }
    const v = value(el, tag, node.role, node.masked);
    if (v) node.text = clip(v, maxName);
    if (FROM_CONTENT.has(node.role)) {
      const fromKids = !node.name;
      if (fromKids) node.name = clip(norm(kids.map(flat).join('')), maxName) || attr(el, 'title') || '';
      else for (const k of kids) if (k.hid !== undefined) drop(k.why); // unseen, and not its name
      if (!kids.some(hasAct)) kids.length = 0;
      else if (fromKids) node.nfc = true;
    }
    if (kids.length === 1 && typeof kids[0] === 'string' && !node.text) {
      node.text = clip(norm(kids[0]), maxText);
      kids.length = 0;
    }
    node.kids = kids.map((k) => (typeof k === 'string' ? { role: 'text', name: '', attrs: [], ref: 0, text: clip(norm(k), maxText), kids: [] } : k));
  }

  let root = document.body || document.documentElement;
  if (opts.rootRef) {
    root = W.byN.get(opts.rootRef)?.deref();
    if (!root || !root.isConnected) return { gone: true };
  } else if (opts.root) {
    root = document.querySelector(opts.root);
    if (!root) throw new Error('no element matches the root selector');
  }
  const top = [];
  if (root === document.body || root === document.documentElement) {
    walkKids(root, top, { cs: getComputedStyle(root), v: V.context(root) });
  } else {
    const up = V.parentOf(root);
    // A subtree inside a sensitive element is as sensitive.
    visit(root, top, { cs: getComputedStyle(up || document.documentElement), v: up ? V.context(up) : V.root(document), secret: !!up && gasolineSecret(up, opts.mask) });
  }
  const out = [];
  let count = 0;
  function emit(item, depth) {
    if (item.hid !== undefined) {
      drop(item.why); // unseen text left over in a control's children
      return;
    }
    if (typeof item === 'string') {
      const t = clip(norm(item), maxText);
      if (t) item = { role: 'text', name: '', attrs: [], ref: 0, text: t, kids: [] };
      else return;
    }
    count++;
    if (item.nfc) item.attrs.push('nfc');
    if (item.el && (item.act || (item.name && !item.nfc && !NOREF.has(item.role)))) item.ref = refOf(item.el);
    out.push(depth + '\t' + item.role + '\t' + item.name + '\t' + item.attrs.join(' ') + '\t' + (item.ref || '') + '\t' + item.text);
    for (const k of item.kids) emit(k, depth + 1);
  }
  for (const item of top) emit(item, 0);
  return { records: out.join('\n'), next, nodes: count, hidden, why: V.tally(), ms: performance.now() - t0, drewText };
}
