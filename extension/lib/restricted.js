// Pages this extension never debugs, recognised from the tab's URL before
// attaching, before a navigation and whenever a tab's URL changes. It
// mirrors the daemon's one definition of where an agent may go
// (internal/scheme; the same cases run in tests/restricted.test.mjs): an
// agent's tab may show http:, https:, about:blank (a frame also
// about:srcdoc) or a blob: page of a web origin, and nothing else — no
// file: page, no extension's page (this extension's own panel above all),
// no browser page. Pure logic. Chrome's own refusals are still mapped in
// errors.js for whatever this misses. Reasons name the kind of page,
// never the URL (it may carry secrets).

const BROWSER_PAGE = (scheme) => `a ${scheme}// page (a browser page)`;

const SCHEMES = new Map([
  ['file:', 'a file: URL (a file or folder on this computer)'],
  ['javascript:', 'a javascript: URL'],
  ['data:', 'a data: URL'],
  ['blob:', 'a blob: URL of another origin'],
  ['view-source:', 'a view-source: page'],
  ['chrome:', BROWSER_PAGE('chrome:')],
  ['chrome-untrusted:', BROWSER_PAGE('chrome-untrusted:')],
  ['chrome-search:', BROWSER_PAGE('chrome-search:')],
  ['chrome-error:', 'a chrome-error:// page (a browser error page)'],
  ['edge:', 'an edge:// page (a browser page)'],
  ['brave:', BROWSER_PAGE('brave:')],
  ['opera:', 'an opera:// page (a browser page)'],
  ['vivaldi:', BROWSER_PAGE('vivaldi:')],
  ['devtools:', 'a devtools:// page (Chrome DevTools)'],
  ['chrome-extension:', "an extension's page"],
  ['filesystem:', 'a filesystem: URL'],
]);

const ABOUT_OK = new Set(['blank', 'srcdoc']);
const WEB_STORE = 'the Chrome Web Store';

/**
 * Why no agent may drive or read a page at url, or null.
 * @param {string | undefined} url the tab's url or pendingUrl ("" or
 *   undefined: not known yet)
 * @returns {string | null} e.g. "a chrome:// page (a browser page)"
 */
export function restrictedReason(url) {
  if (!url) return null;
  let u;
  try {
    u = new URL(url);
  } catch {
    return 'an address that is not a full URL';
  }
  const scheme = u.protocol.toLowerCase();
  if (scheme === 'http:' || scheme === 'https:') return webStore(u);
  if (scheme === 'about:') {
    const page = u.pathname.toLowerCase();
    return ABOUT_OK.has(page) ? null : `about:${page} (a browser page)`;
  }
  if (scheme === 'blob:' && webOrigin(u.pathname)) return null;
  return SCHEMES.get(scheme) ?? `a ${scheme} URL`;
}

/**
 * Why an agent may not navigate a tab to url, or null: a page it may not
 * drive, and about:srcdoc (a frame's document, never a tab's).
 */
export function navigationRefused(url) {
  const why = restrictedReason(url);
  if (why) return why;
  if (!url || url.toLowerCase().startsWith('about:srcdoc')) {
    return 'an address that is not an http:, https: or about:blank page';
  }
  return null;
}

function webStore(u) {
  if (u.hostname === 'chromewebstore.google.com') return WEB_STORE;
  if (
    u.hostname === 'chrome.google.com' &&
    /^\/webstore(?:\/|$)/i.test(u.pathname)
  ) {
    return WEB_STORE;
  }
  return null;
}

function webOrigin(inner) {
  try {
    const u = new URL(inner);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : '';
  } catch {
    return '';
  }
}
