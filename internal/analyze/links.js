// analyze link_health, the page's side: every link (a[href], area[href])
// with its absolute URL, visible text and ref; a link to an anchor of this
// document says whether the anchor exists.
(opts) => {
  const here = location.href.split('#')[0];
  const out = [];
  let total = 0;
  for (const el of document.querySelectorAll('a[href], area[href]')) {
    total++;
    if (out.length >= opts.max_links) continue;
    const href = el.href;
    const l = { url: href, text: textOf(el, 100) || nameOf(el)[0] || clip(norm(el.getAttribute('alt') || ''), 100), ref: refOf(el), visible: visible(el) };
    const hash = href.indexOf('#');
    if (hash >= 0 && href.slice(0, hash) === here) {
      const id = decodeURIComponent(href.slice(hash + 1));
      l.anchor = id === '' || id === 'top' || !!document.getElementById(id) || document.getElementsByName(id).length > 0;
    }
    out.push(l);
  }
  return { url: location.href, links: out, total };
}
