// Pages Chrome does not let extensions debug, recognised from the tab's URL
// before attaching so the error can say why. Pure logic. Chrome's own
// refusals are still mapped in errors.js for whatever this misses.
// Reasons name the kind of page, never the URL (it may carry secrets).

const BROWSER_PAGE = (scheme) => `a ${scheme}// page (a browser page)`;

const SCHEMES = new Map([
  ['chrome:', BROWSER_PAGE('chrome:')],
  ['chrome-untrusted:', BROWSER_PAGE('chrome-untrusted:')],
  ['chrome-search:', BROWSER_PAGE('chrome-search:')],
  ['edge:', 'an edge:// page (a browser page)'],
  ['brave:', BROWSER_PAGE('brave:')],
  ['opera:', 'an opera:// page (a browser page)'],
  ['vivaldi:', BROWSER_PAGE('vivaldi:')],
  ['devtools:', 'a devtools:// page (Chrome DevTools)'],
  ['view-source:', 'a view-source: page'],
]);

const ABOUT_OK = new Set(['blank', 'srcdoc']);
const WEB_STORE = 'the Chrome Web Store';

/**
 * Why Chrome will not let this extension debug a page at url, or null.
 * @param {string | undefined} url the tab's url or pendingUrl
 * @param {string} selfId this extension's id (its own pages are allowed)
 * @returns {string | null} e.g. "a chrome:// page (a browser page)"
 */
export function restrictedReason(url, selfId) {
  if (!url) return null;
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const scheme = u.protocol.toLowerCase();
  const known = SCHEMES.get(scheme);
  if (known) return known;
  if (scheme === 'about:') {
    const page = u.pathname.toLowerCase();
    return ABOUT_OK.has(page) ? null : `about:${page} (a browser page)`;
  }
  if (scheme === 'chrome-extension:') {
    return u.hostname === selfId ? null : "another extension's page";
  }
  if (scheme === 'http:' || scheme === 'https:') {
    if (u.hostname === 'chromewebstore.google.com') return WEB_STORE;
    if (
      u.hostname === 'chrome.google.com' &&
      /^\/webstore(?:\/|$)/i.test(u.pathname)
    ) {
      return WEB_STORE;
    }
  }
  return null;
}
