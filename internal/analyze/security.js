// analyze security_audit, the page's side: Web Storage (keys and values:
// the daemon looks for secrets and reports key names only), elements that
// load http: URLs into an https: page, and CSP <meta> tags.
(opts) => {
  const dump = (name) => {
    try {
      const st = window[name];
      const items = [];
      for (let i = 0; i < st.length && i < opts.max_items; i++) {
        const k = st.key(i);
        const v = st.getItem(k) || '';
        items.push([k, v.length > opts.max_value ? v.slice(0, opts.max_value) : v]);
      }
      return items;
    } catch {
      return [];
    }
  };
  const https = location.protocol === 'https:';
  const mixed = [];
  const loads = [
    ['script[src]', 'src', 'active'],
    ['link[rel~="stylesheet" i][href]', 'href', 'active'],
    ['iframe[src]', 'src', 'active'],
    ['object[data]', 'data', 'active'],
    ['embed[src]', 'src', 'active'],
    ['form[action]', 'action', 'active'],
    ['img[src]', 'src', 'passive'],
    ['video[src]', 'src', 'passive'],
    ['video[poster]', 'poster', 'passive'],
    ['audio[src]', 'src', 'passive'],
    ['source[src]', 'src', 'passive'],
  ];
  if (https) {
    for (const [sel, attr, kind] of loads) {
      for (const el of document.querySelectorAll(sel)) {
        let u;
        try {
          u = new URL(el.getAttribute(attr), document.baseURI);
        } catch {
          continue;
        }
        if (u.protocol === 'http:' && mixed.length < 100) {
          mixed.push({ tag: el.localName, kind, url: u.href, ref: refOf(el), selector: cssPath(el) });
        }
      }
    }
  }
  return {
    url: location.href,
    https,
    local: dump('localStorage'),
    session: dump('sessionStorage'),
    mixed,
    meta_csp: [...document.querySelectorAll('meta[http-equiv="content-security-policy" i]')].map((m) => m.content || ''),
  };
}
