// Bounds every chrome.debugger.sendCommand: a command fails with timeout
// after its time, and at once when its page crashes (Chrome itself leaves
// such commands pending until the tab reloads or detaches). While a tab's
// page is crashed, commands other than a reload or navigation fail fast.

import { ProtocolError, tabUnloaded } from './errors.js';
import { realTimers } from './timers.js';

export const SEND_TIMEOUT_DEFAULT_MS = 120_000;
export const SEND_TIMEOUT_MAX_MS = 600_000;

/** Commands that still work on a crashed page (handled by the browser). */
export const CRASH_OK = new Set(['Page.reload', 'Page.navigate']);

export class InFlight {
  /** @param {{timers?: typeof realTimers}} [opts] */
  constructor(opts = {}) {
    this.timers = opts.timers ?? realTimers;
    this.running = new Map(); // tabId -> Set<{sessionId, fail}>
    this.crashed = new Set(); // tabIds whose page crashed
  }

  /** Throws tab_unloaded when tabId's page crashed and method needs it. */
  check(tabId, sessionId, method) {
    if (!this.crashed.has(tabId)) return;
    if (!sessionId && CRASH_OK.has(method)) return;
    throw tabUnloaded(tabId, 'crashed');
  }

  /**
   * Waits for promise (a sendCommand of method on tabId), at most timeoutMs.
   * @returns {Promise<unknown>}
   */
  run(tabId, sessionId, method, promise, timeoutMs) {
    let entry;
    const bounded = new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        reject(
          new ProtocolError(
            'timeout',
            `${method} on tab ${tabId} got no answer within ${timeoutMs} ms ` +
              `(a dialog may be open, or a promise never settled); it may ` +
              `still take effect`,
            false,
          ),
        );
      }, timeoutMs);
      entry = {
        sessionId,
        fail: (err) => reject(err),
        done: () => this.timers.clearTimeout(timer),
      };
      promise.then(resolve, reject);
    });
    let set = this.running.get(tabId);
    if (!set) this.running.set(tabId, (set = new Set()));
    set.add(entry);
    return bounded.finally(() => {
      entry.done();
      set.delete(entry);
      if (set.size === 0 && this.running.get(tabId) === set) {
        this.running.delete(tabId);
      }
    });
  }

  /** Inspector.targetCrashed: fails the commands of that page. */
  crash(tabId, sessionId) {
    if (!sessionId) this.crashed.add(tabId);
    for (const e of this.running.get(tabId) ?? []) {
      if (!sessionId || e.sessionId === sessionId) {
        e.fail(tabUnloaded(tabId, sessionId ? 'frame' : 'crashed'));
      }
    }
  }

  /** The page of tabId loads again (or the tab is gone). */
  recovered(tabId) {
    this.crashed.delete(tabId);
  }
}
