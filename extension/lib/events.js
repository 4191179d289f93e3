// Shapes of the CDP events the extension forwards (PROTOCOL.md "Events from
// the extension"). Pure logic.

/** The largest cdp.event forwarded; larger ones are dropped and counted. */
export const MAX_EVENT_BYTES = 8 * 1024 * 1024;

/**
 * CDP events the daemon has no use for, never forwarded: Chrome sends
 * three screencast visibility changes per screenshot (the capture's hold),
 * each a trip through the native host and the daemon on the capture's path.
 */
export const UNFORWARDED = new Set(['Page.screencastVisibilityChanged']);

/** cdp.event params for a chrome.debugger.onEvent call, or null. */
export function cdpEvent(source, method, params) {
  if (source?.tabId === undefined || UNFORWARDED.has(method)) return null;
  const p = { tab_id: source.tabId, method, params: params ?? {} };
  if (source.sessionId) p.session_id = source.sessionId;
  return p;
}

/** cdp.detached params for a chrome.debugger.onDetach call, or null. */
export function cdpDetached(source, reason) {
  if (source?.tabId === undefined) return null;
  return { tab_id: source.tabId, reason };
}
