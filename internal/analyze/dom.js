// analyze dom: a DOM subtree (a ref's element, the first match of a
// selector, or the body) with its attributes, depth- and count-bounded.
// Open shadow roots are walked; the text of hidden elements is dropped.
(opts) => {
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
      const s = norm(n.data);
      if (!s) return;
      if (!textVisible(n)) {
        H.dropped += s.length;
        return;
      }
      emit({ d: depth, text: clip(s, opts.max_text) });
      return;
    }
    if (n.nodeType !== 1) return;
    const el = n;
    const secret = secretField(el);
    const attrs = [...el.attributes].map((a) => [a.name, secret && a.name === 'value' && a.value ? '••••' : clip(norm(a.value), opts.max_attr)]);
    const hidden = !visible(el);
    emit({ d: depth, tag: el.localName, attrs, ref: refOf(el), hidden });
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
  return { url: location.href, matches, nodes, cut, deeper };
}
