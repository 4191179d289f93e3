// Gasoline CSP reader: evaluated in an isolated world of the page's main
// frame (the page's scripts cannot change what it sees). It returns the
// inline content Content-Security-Policy governs, as text to hash.
(() => {
  const MAX_ITEMS = 200;
  const MAX_TEXT = 256 * 1024;
  const MAX_ELEMENTS = 20000;
  const out = {
    scripts: [],
    styles: [],
    handlers: [],
    style_attrs: [],
    js_urls: 0,
    unreadable: 0,
    truncated: false,
    elements_seen: 0,
  };
  const push = (list, text) => {
    if (list.length >= MAX_ITEMS) {
      out.truncated = true;
    } else if (text.length > MAX_TEXT) {
      out.unreadable++;
    } else if (!list.includes(text)) {
      list.push(text);
    }
  };
  const scriptTypes = [
    '',
    'text/javascript',
    'application/javascript',
    'module',
    'importmap',
    'text/ecmascript',
  ];
  for (const s of document.querySelectorAll('script:not([src])')) {
    if (
      scriptTypes.includes((s.getAttribute('type') || '').trim().toLowerCase())
    )
      push(out.scripts, s.text);
  }
  for (const s of document.querySelectorAll('style'))
    push(out.styles, s.textContent);
  for (const el of document.querySelectorAll('*')) {
    if (++out.elements_seen > MAX_ELEMENTS) {
      out.truncated = true;
      break;
    }
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      if (name.startsWith('on')) push(out.handlers, a.value);
      else if (name === 'style') push(out.style_attrs, a.value);
      else if (
        (name === 'href' || name === 'src' || name === 'action') &&
        /^\s*javascript:/i.test(a.value)
      )
        out.js_urls++;
    }
  }
  return out;
})();
