// Which tabs this extension has attached chrome.debugger to. Concurrent
// callers for one tab share one attach promise, so a tab is attached once.

import { errorText } from './errors.js';

export const CDP_VERSION = '1.3';

// Chrome answers this only when *this* extension is already attached (e.g.
// attached before the service worker restarted and lost its memory).
const ALREADY_ATTACHED = /already attached/i;
const NOT_ATTACHED = /not attached/i;

export class Attachments {
  /** @param {typeof chrome.debugger} dbg */
  constructor(dbg) {
    this.dbg = dbg;
    this.tabs = new Map(); // tabId -> Promise<void> of the attach
  }

  /** Whether tabId is attached or being attached. */
  has(tabId) {
    return this.tabs.has(tabId);
  }

  /** Attaches to tabId unless attached or attaching; rejects with Chrome's error. */
  ensure(tabId) {
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
    try {
      await this.dbg.attach({ tabId }, CDP_VERSION);
    } catch (err) {
      if (!ALREADY_ATTACHED.test(errorText(err))) throw err;
    }
  }

  /** Forgets tabId's state (it was detached or closed). */
  forget(tabId) {
    this.tabs.delete(tabId);
  }

  /** Detaches from tabId; detaching a tab that is not attached succeeds. */
  async detach(tabId) {
    const p = this.tabs.get(tabId);
    this.tabs.delete(tabId);
    if (p) await p.catch(() => {});
    try {
      await this.dbg.detach({ tabId });
    } catch (err) {
      if (!NOT_ATTACHED.test(errorText(err))) throw err;
    }
  }
}
