// Helpers every analyze script starts with (after visible.js and the
// snapshot's gasolineRefOf). They run in Gasoline's isolated world. H
// counts the characters of hidden text the predicate dropped.
const H = { dropped: 0, why: {} };
const SKIP_TEXT = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);

const norm = (s) => s.replace(/\s+/g, ' ').trim();
const clip = (s, n) => (s.length > n ? s.slice(0, n - 1).trimEnd() + '…' : s);

// secretField(el): a sensitive element (internal/sensitive: MASK are the
// selectors, the script's second argument), whose value is never shown.
let secretTest = null;
function secretSelf(el) {
  secretTest ??= gasolineSecretTest(MASK);
  return secretTest(el);
}
function secretField(el) {
  return !!el && el.nodeType === 1 && gasolineSecretIn(el, secretSelf);
}

// maskHTML(el, html): markup of el with a sensitive element's value
// attribute and content masked.
function maskHTML(el, html) {
  if (!secretField(el)) return html;
  html = html.replace(/(\svalue\s*=\s*)("[^"]*"|'[^']*'|[^\s>]+)/gi, '$1"••••"');
  const open = html.indexOf('>');
  return open >= 0 && el.localName !== 'input' ? html.slice(0, open + 1) + '••••' : html; // nothing inside it either
}

// refOf(el): the ref the latest snapshot issued for el ("" when none).
function refOf(el) {
  const n = el ? gasolineRefOf(el) : 0;
  return n ? n : 0;
}

// cssPath(el): a selector that finds el (an id when it is unique).
function cssPath(el) {
  const uniqueId = (e) => e.id && document.querySelectorAll('#' + CSS.escape(e.id)).length === 1;
  const parts = [];
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    if (uniqueId(e)) {
      parts.unshift('#' + CSS.escape(e.id));
      break;
    }
    if (e === document.documentElement) {
      parts.unshift('html');
      break;
    }
    let s = e.localName;
    const p = e.parentElement;
    if (p) {
      const same = [...p.children].filter((c) => c.localName === e.localName);
      if (same.length > 1) s += ':nth-of-type(' + (same.indexOf(e) + 1) + ')';
    }
    parts.unshift(s);
  }
  return parts.join(' > ');
}

// nameOf(el): a control's accessible name and where it came from
// (aria-labelledby, aria-label, label, title, placeholder; "" when none).
function nameOf(el) {
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const t = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map((e) => textOf(e, 200)).join(' ').trim();
    if (t) return [t, 'aria-labelledby'];
  }
  const al = (el.getAttribute('aria-label') || '').trim();
  if (al) return [clip(norm(al), 200), 'aria-label'];
  if (el.labels && el.labels.length) {
    const t = [...el.labels].map((l) => textOf(l, 200)).join(' ').trim();
    if (t) return [t, 'label'];
  }
  const ti = (el.getAttribute('title') || '').trim();
  if (ti) return [clip(norm(ti), 200), 'title'];
  const ph = (el.getAttribute('placeholder') || '').trim();
  if (ph) return [clip(norm(ph), 200), 'placeholder'];
  return ['', ''];
}

// within(selector): the elements the call is scoped to (the document's
// root when selector is empty); throws "no_match" when none matches.
function within(selector) {
  if (!selector) return [document.documentElement];
  let found;
  try {
    found = [...document.querySelectorAll(selector)];
  } catch (e) {
    throw 'bad_selector: ' + e.message;
  }
  if (!found.length) throw 'no_match';
  return found;
}
