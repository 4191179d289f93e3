// Connects chrome.* events to the relay and the link. Called once, at the
// top level of the service worker, so every listener is registered
// synchronously; tests call it with fakes.

import { MAX_EVENT_BYTES, cdpDetached, cdpEvent } from './events.js';

const WINDOW_ID_NONE = -1; // chrome.windows.WINDOW_ID_NONE

/**
 * @param {typeof chrome} api chrome, or a fake with the same events
 * @param {import('./relay.js').Relay} relay
 * @param {(method: string, params: object, opts?: object) => boolean} notify
 *   sends an event to the daemon (Connector.notify)
 * @param {(text: string) => void} [log]
 */
export function wire(api, relay, notify, log = () => {}) {
  api.debugger.onEvent.addListener((source, method, params) => {
    const p = cdpEvent(source, method, params);
    if (!p) return;
    if (method === 'Target.attachedToTarget') {
      relay.childAttached(p.tab_id, params);
    } else if (method === 'Inspector.targetCrashed') {
      relay.crashed(p.tab_id, p.session_id);
    } else if (method === 'Inspector.targetReloadedAfterCrash') {
      relay.reloaded(p.tab_id, p.session_id);
    }
    notify('cdp.event', p, {
      maxBytes: MAX_EVENT_BYTES,
      label: `cdp.event ${method}`,
    });
  });

  api.debugger.onDetach.addListener((source, reason) => {
    const p = cdpDetached(source, reason);
    if (!p) return;
    relay.detached(p.tab_id, reason);
    log(`debugger detached from tab ${p.tab_id}: ${reason}`);
    notify('cdp.detached', p);
  });

  api.tabs.onUpdated.addListener((tabId, change) => {
    relay.updated(tabId, change);
  });

  // A tab that a tab of ours opened (a link with a target, window.open, a
  // middle-click): the daemon gives it to the opener's session. The
  // user's other tabs opening tabs are never reported.
  api.tabs.onCreated.addListener((tab) => {
    const p = relay.created(tab);
    if (p) notify('tabs.opened', p);
  });

  api.tabs.onReplaced.addListener((added, removed) => {
    relay.replaced(added, removed);
    log(`tab ${removed} was replaced by tab ${added}`);
    notify('tabs.replaced', { tab_id: added, replaced_tab_id: removed });
  });

  api.tabs.onRemoved.addListener((tabId) => {
    relay.removed(tabId);
    notify('tabs.removed', { tab_id: tabId });
  });

  api.tabGroups.onRemoved.addListener((group) => {
    relay.watch.groupRemoved(group.id);
  });

  // The browser the user works in: new tabs of agents that name no
  // browser go to the one focused last.
  api.windows?.onFocusChanged.addListener((windowId) => {
    if (windowId !== WINDOW_ID_NONE) notify('browser.focused', {});
  });
}
