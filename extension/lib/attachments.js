// Which tabs this extension has attached chrome.debugger to, and why the
// others were detached. Concurrent callers for one tab share one attach
// promise, so a tab is attached once. A tab whose debugging bar the user
// cancelled stays refused until allow(tabId); that set is persisted so a
// suspended worker does not forget it.

import {
  canceledByUser,
  errorText,
  restrictedPage,
  tabUnloaded,
} from './errors.js';
import { restrictedReason } from './restricted.js';

export const CDP_VERSION = '1.3';

/** Target.setAutoAttach params: OOPIFs and workers become child sessions. */
export const AUTO_ATTACH = Object.freeze({
  autoAttach: true,
  waitForDebuggerOnStart: false,
  flatten: true,
});

// Chrome answers this only when *this* extension is already attached (e.g.
// attached before the service worker restarted and lost its memory).
const ALREADY_ATTACHED = /already attached/i;
const NOT_ATTACHED = /not attached/i;

export class Attachments {
  /**
   * @param {object} opts
   * @param {typeof chrome.debugger} opts.debugger
   * @param {typeof chrome.tabs} opts.tabs
   * @param {string} opts.selfId this extension's id
   * @param {import('./store.js').Stored} [opts.canceledStore]
   * @param {(tabId: number) => void} [opts.onAttached]
   * @param {(text: string) => void} [opts.log]
   */
  constructor(opts) {
    this.dbg = opts.debugger;
    this.tabsApi = opts.tabs;
    this.selfId = opts.selfId;
    this.canceledStore = opts.canceledStore;
    this.onAttached = opts.onAttached ?? (() => {});
    this.log = opts.log ?? (() => {});
    this.tabs = new Map(); // tabId -> Promise<void> of the attach
    this.canceled = new Set(); // tabIds the user cancelled debugging on
    this.detaches = new Map(); // tabId -> {count, reattach}
    this.restricted = new Map(); // tabId -> why its page is off-limits
  }

  /** Restores the persisted cancelled tabs. */
  async load() {
    const ids = await this.canceledStore?.load();
    if (Array.isArray(ids)) for (const id of ids) this.canceled.add(id);
  }

  /** Whether tabId is attached or being attached. */
  has(tabId) {
    return this.tabs.has(tabId);
  }

  /** The tabs attached or being attached. */
  attached() {
    return [...this.tabs.keys()];
  }

  isCanceled(tabId) {
    return this.canceled.has(tabId);
  }

  /** Lifts the user's cancel on tabId (the daemon asked the user first). */
  allow(tabId) {
    if (this.canceled.delete(tabId)) this.persist();
  }

  /** How many times Chrome detached tabId so far. */
  detachCount(tabId) {
    return this.detaches.get(tabId)?.count ?? 0;
  }

  /**
   * Whether the next attach of tabId is the one automatic re-attach after a
   * target_closed detach; consumes it.
   */
  takeReattach(tabId) {
    const d = this.detaches.get(tabId);
    if (!d?.reattach) return false;
    d.reattach = false;
    return true;
  }

  /**
   * Attaches to tabId unless attached or attaching; rejects with a
   * ProtocolError (canceled_by_user, restricted_page) or Chrome's error.
   */
  ensure(tabId) {
    if (this.canceled.has(tabId)) {
      return Promise.reject(canceledByUser(tabId));
    }
    const why = this.restricted.get(tabId);
    if (why) return Promise.reject(restrictedPage(tabId, why));
    let p = this.tabs.get(tabId);
    if (p) return p;
    p = this.attach(tabId);
    this.tabs.set(tabId, p);
    p.catch(() => {
      if (this.tabs.get(tabId) === p) this.tabs.delete(tabId);
    });
    return p;
  }

  async attach(tabId) {
    const tab = await this.tabsApi.get(tabId);
    if (tab.discarded) throw tabUnloaded(tabId, 'discarded');
    for (const url of [tab.url, tab.pendingUrl]) {
      const why = restrictedReason(url);
      if (why) throw restrictedPage(tabId, why);
    }
    try {
      await this.dbg.attach({ tabId }, CDP_VERSION);
    } catch (err) {
      if (!ALREADY_ATTACHED.test(errorText(err))) throw err;
    }
    await this.autoAttach({ tabId });
    this.onAttached(tabId);
  }

  /** Makes OOPIFs and workers under target appear as child sessions. */
  async autoAttach(target) {
    try {
      await this.dbg.sendCommand(target, 'Target.setAutoAttach', AUTO_ATTACH);
    } catch (err) {
      this.log(
        `Target.setAutoAttach on tab ${target.tabId}` +
          `${target.sessionId ? ' (child session)' : ''} failed: ` +
          `${errorText(err).slice(0, 120)}`,
      );
    }
  }

  /** Records Chrome's chrome.debugger.onDetach for tabId. */
  detached(tabId, reason) {
    this.tabs.delete(tabId);
    const d = this.detaches.get(tabId) ?? { count: 0, reattach: false };
    d.count += 1;
    d.reattach = reason === 'target_closed';
    this.detaches.set(tabId, d);
    if (reason === 'canceled_by_user' && !this.canceled.has(tabId)) {
      this.canceled.add(tabId);
      this.persist();
    }
  }

  /**
   * The tab's URL changed (chrome.tabs.onUpdated). A page no agent may
   * drive (restricted.js) refuses every command from now on, until the tab
   * shows an allowed page again.
   * @returns {string | null} why the new page is off-limits, or null
   */
  urlChanged(tabId, url) {
    const why = restrictedReason(url);
    if (why) this.restricted.set(tabId, why);
    else this.restricted.delete(tabId);
    return why;
  }

  /** Forgets the attachment of tabId (a command saw it detached). */
  forget(tabId) {
    this.tabs.delete(tabId);
  }

  /** Forgets everything about a tab that was closed. */
  removed(tabId) {
    this.tabs.delete(tabId);
    this.detaches.delete(tabId);
    this.restricted.delete(tabId);
    if (this.canceled.delete(tabId)) this.persist();
  }

  /** Chrome replaced tab removed by added (e.g. discarded it). */
  replaced(added, removed) {
    const canceled = this.canceled.has(removed);
    this.removed(removed);
    if (canceled) {
      this.canceled.add(added);
      this.persist();
    }
  }

  /**
   * Detaches from tabId.
   * @returns {Promise<boolean>} whether it was attached; detaching a tab
   *   that is not attached succeeds
   */
  async detach(tabId) {
    const p = this.tabs.get(tabId);
    this.tabs.delete(tabId);
    if (p) await p.catch(() => {});
    try {
      await this.dbg.detach({ tabId });
      return true;
    } catch (err) {
      if (NOT_ATTACHED.test(errorText(err))) return false;
      throw err;
    }
  }

  persist() {
    this.canceledStore?.save([...this.canceled]);
  }
}
