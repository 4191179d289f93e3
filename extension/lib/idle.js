// Idle detach: a tab with no cdp.send for `ms` is handed to onIdle, so
// Chrome's "is debugging this browser" bar does not linger. A command in
// flight keeps its tab busy; the clock restarts when the last one ends.
// Timers are injected, so tests need no real sleeps. (The service worker
// stays alive while the native port is open, so plain timers suffice.)

import { realTimers } from './timers.js';

export const IDLE_DETACH_DEFAULT_MS = 5 * 60_000;
export const IDLE_DETACH_MIN_MS = 1_000;
export const IDLE_DETACH_MAX_MS = 24 * 60 * 60_000;

export class IdleDetacher {
  /**
   * @param {object} opts
   * @param {(tabId: number) => void} opts.onIdle
   * @param {number} [opts.ms]
   * @param {typeof realTimers} [opts.timers]
   */
  constructor(opts) {
    this.onIdle = opts.onIdle;
    this.ms = opts.ms ?? IDLE_DETACH_DEFAULT_MS;
    this.timers = opts.timers ?? realTimers;
    this.tabs = new Map(); // tabId -> {busy, timer}
  }

  entry(tabId) {
    let e = this.tabs.get(tabId);
    if (!e) {
      e = { busy: 0, timer: null };
      this.tabs.set(tabId, e);
    }
    return e;
  }

  /** A command on tabId started. */
  begin(tabId) {
    const e = this.entry(tabId);
    e.busy += 1;
    this.stop(e);
  }

  /** A command on tabId ended; arms the timer when attached and not busy. */
  end(tabId, attached) {
    const e = this.entry(tabId);
    e.busy = Math.max(0, e.busy - 1);
    if (e.busy > 0) return;
    if (attached) this.arm(tabId, e);
    else this.clear(tabId);
  }

  /** tabId was used outside a command (e.g. cdp.attach): restart its clock. */
  touch(tabId) {
    const e = this.entry(tabId);
    if (e.busy === 0) this.arm(tabId, e);
  }

  /** Forgets tabId (detached or closed). */
  clear(tabId) {
    const e = this.tabs.get(tabId);
    if (!e) return;
    this.stop(e);
    if (e.busy === 0) this.tabs.delete(tabId);
  }

  /** Changes the idle time; running clocks restart with it. */
  setMs(ms) {
    this.ms = ms;
    for (const [tabId, e] of this.tabs)
      if (e.timer !== null) this.arm(tabId, e);
  }

  /** Tabs whose idle clock is running (for tests and diagnostics). */
  armed() {
    return [...this.tabs].filter(([, e]) => e.timer !== null).map(([t]) => t);
  }

  arm(tabId, e) {
    this.stop(e);
    e.timer = this.timers.setTimeout(() => {
      e.timer = null;
      if (e.busy > 0) return;
      this.tabs.delete(tabId);
      this.onIdle(tabId);
    }, this.ms);
  }

  stop(e) {
    if (e.timer !== null) this.timers.clearTimeout(e.timer);
    e.timer = null;
  }
}
