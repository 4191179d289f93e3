// analyze dom: a DOM subtree (a ref's element, the first match of a
// selector, or the body) with its attributes, depth- and count-bounded.
// Open shadow roots are walked; the text of hidden elements is dropped.
(opts) => {
  const STRUCTURE = new Set(['id', 'class', 'style', 'href', 'src', 'srcset', 'type', 'name', 'role', 'for', 'rel', 'lang', 'dir',
    'tabindex', 'width', 'height', 'action', 'method', 'target', 'colspan', 'rowspan', 'scope', 'charset', 'http-equiv', 'xmlns',
    'viewbox', 'viewBox', 'd', 'fill', 'stroke', 'x', 'y', 'cx', 'cy', 'r', 'transform', 'points', 'hidden', 'disabled', 'checked',
    'selected', 'required', 'readonly', 'multiple', 'open', 'draggable', 'contenteditable', 'spellcheck', 'autocomplete',
    'inputmode', 'maxlength', 'minlength', 'min', 'max', 'step', 'pattern', 'accept', 'loading', 'decoding', 'crossorigin',
    'integrity', 'referrerpolicy', 'sizes', 'media', 'async', 'defer', 'nonce', 'slot', 'part', 'is', 'datetime', 'popover',
    'tabIndex', 'inert', 'translate', 'aria-hidden', 'aria-expanded', 'aria-selected', 'aria-checked', 'aria-disabled',
    'aria-controls', 'aria-labelledby', 'aria-describedby', 'aria-haspopup', 'aria-current', 'aria-live', 'aria-level',
    'aria-pressed', 'aria-modal', 'aria-owns', 'aria-required', 'aria-invalid', 'aria-busy', 'aria-atomic', 'data-gasoline-mask']);
  let root;
  let matches = 1;
  if (opts.root_ref) {
    root = globalThis.__gasoline?.byN.get(opts.root_ref)?.deref();
    if (!root) throw 'no_match';
  } else if (opts.selector) {
    const found = within(opts.selector);
    matches = found.length;
    root = found[0];
  } else {
    root = document.body || document.documentElement;
  }
  const nodes = [];
  let cut = 0;
  let deeper = 0;
  const emit = (n) => (nodes.length < opts.limit ? nodes.push(n) : cut++);
  // count(n): the elements below n, shadow trees included.
  const count = (n) => {
    let k = 0;
    const w = document.createTreeWalker(n, NodeFilter.SHOW_ELEMENT);
    for (let e = w.nextNode(); e; e = w.nextNode()) k += 1 + (e.shadowRoot ? count(e.shadowRoot) : 0);
    return k;
  };
  const walk = (n, depth) => {
    if (n.nodeType === 3) {
      const s = textShown(n);
      if (s) emit({ d: depth, text: clip(s, opts.max_text) });
      return;
    }
    if (n.nodeType !== 1) return;
    const el = n;
    const secret = secretField(el);
    const attrs = [...el.attributes].map((a) => [a.name, secret && a.name === 'value' && a.value ? '••••' : clip(norm(a.value), opts.max_attr)]);
    const hidden = !visible(el);
    const unseen = attrs.filter(([k, v]) => v && !drawn(el, k, hidden)).map(([k]) => k);
    emit({ d: depth, tag: el.localName, attrs, ref: refOf(el), hidden, not_visible: unseen.length ? unseen : undefined });
    if (SKIP_TEXT.has(el.localName)) return;
    if (secret) {
      // Nothing inside a sensitive element is quoted (internal/sensitive).
      if (!hidden && el.firstChild) emit({ d: depth + 1, text: '••••' });
      return;
    }
    if (hidden) {
      H.dropped += norm(el.textContent || '').length;
      return;
    }
    const kids = [...el.childNodes];
    if (depth + 1 >= opts.depth) {
      deeper += count(el) + (el.shadowRoot ? count(el.shadowRoot) : 0);
      return;
    }
    if (el.shadowRoot) {
      emit({ d: depth + 1, shadow: el.shadowRoot.mode });
      for (const k of el.shadowRoot.childNodes) walk(k, depth + 2);
    }
    for (const k of kids) walk(k, depth + 1);
  };
  walk(root, 0);
  // drawn: whether a person sees an attribute's value on the page —
  // markup (ids, classes, links, types) names structure, not text; the
  // free text of others (data-*, title, alt, aria-*, <meta> content, a
  // hidden input's value) is never drawn, except a visible control's
  // value and an empty one's placeholder.
  function drawn(el, k, hidden) {
    if (STRUCTURE.has(k) || k.startsWith('on')) return true;
    if (hidden) return false;
    const field = el.localName === 'textarea' || (el.localName === 'input' && !/^(hidden|checkbox|radio|file|image)$/i.test(el.type));
    if (k === 'value') return field || el.localName === 'option' || el.localName === 'button';
    if (k === 'placeholder') return field && !el.value;
    return false;
  }
  return { url: location.href, matches, nodes, cut, deeper };
}
