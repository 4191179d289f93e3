// The panel page's port to the service worker: requests with replies,
// pushed events, and reconnection with capped exponential backoff and
// jitter when the port drops (the worker restarted or was updated).

import { Backoff } from '../lib/backoff.js';
import { realTimers } from '../lib/timers.js';

export const CLIENT_TIMEOUT_MS = 15_000;

/** A request that failed; code is a PROTOCOL.md or panel error code. */
export class PanelRequestError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'PanelRequestError';
    this.code = code;
  }
}

export class PanelClient {
  /**
   * @param {object} opts
   * @param {() => chrome.runtime.Port} opts.connect opens a port to the worker
   * @param {(method: string, params: unknown) => void} opts.onEvent
   * @param {(state: 'connecting'|'open'|'closed') => void} opts.onPort
   * @param {typeof realTimers} [opts.timers]
   * @param {Backoff} [opts.backoff]
   * @param {number} [opts.timeoutMs]
   */
  constructor(opts) {
    this.opts = opts;
    this.timers = opts.timers ?? realTimers;
    this.backoff = opts.backoff ?? new Backoff({ maxMs: 10_000 });
    this.timeoutMs = opts.timeoutMs ?? CLIENT_TIMEOUT_MS;
    this.port = null;
    this.opened = false; // the worker has spoken on this port
    this.pending = new Map(); // id → {resolve, reject, timer}
    this.nextId = 1;
    this.retryTimer = null;
  }

  start() {
    if (this.port || this.retryTimer !== null) return;
    this.open();
  }

  open() {
    this.opts.onPort('connecting');
    let port;
    try {
      port = this.opts.connect();
    } catch {
      this.retry();
      return;
    }
    this.port = port;
    this.opened = false;
    port.onMessage.addListener((msg) => this.receive(port, msg));
    port.onDisconnect.addListener(() => this.dropped(port));
  }

  /**
   * Sends a request to the daemon through the worker.
   * @param {{timeoutMs?: number}} [opts]
   */
  request(method, params = {}, opts = {}) {
    if (!this.port) {
      return Promise.reject(
        new PanelRequestError(
          'panel_disconnected',
          'the panel is not connected to the extension; it is reconnecting',
        ),
      );
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.pending.delete(id);
        reject(
          new PanelRequestError('timeout', `no answer to ${method} in time`),
        );
      }, opts.timeoutMs ?? this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.port.postMessage({ id, method, params });
      } catch {
        this.dropped(this.port);
      }
    });
  }

  /**
   * Sends an event to the worker (the terminal's stream); false when the
   * port is down.
   */
  notify(method, params) {
    if (!this.port) return false;
    try {
      this.port.postMessage({ method, params });
      return true;
    } catch {
      this.dropped(this.port);
      return false;
    }
  }

  receive(port, msg) {
    if (port !== this.port || !msg || typeof msg !== 'object') return;
    if (!this.opened) {
      // The worker greets every panel with its link state: the port works.
      this.opened = true;
      this.backoff.reset();
      this.opts.onPort('open');
    }
    if (Number.isInteger(msg.id)) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      this.timers.clearTimeout(p.timer);
      if ('result' in msg) {
        p.resolve(msg.result);
      } else {
        const e = msg.error ?? {};
        p.reject(
          new PanelRequestError(
            e.code ?? 'internal',
            e.message ?? 'the request failed',
          ),
        );
      }
      return;
    }
    if (typeof msg.method === 'string') {
      this.opts.onEvent(msg.method, msg.params);
    }
  }

  dropped(port) {
    if (port !== this.port) return;
    this.port = null;
    for (const { reject, timer } of this.pending.values()) {
      this.timers.clearTimeout(timer);
      reject(
        new PanelRequestError(
          'panel_disconnected',
          'the extension’s background worker went away; reconnecting',
        ),
      );
    }
    this.pending.clear();
    this.opts.onPort('closed');
    this.retry();
  }

  retry() {
    const delay = this.backoff.next();
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      this.open();
    }, delay);
  }
}
