// Keeps one Link to the native host alive: connectNative, hello handshake,
// reconnect with capped exponential backoff (reset after a good hello), and
// the host's own events (link.reconnected, link.daemon_unavailable).

import { Backoff } from './backoff.js';
import { errorText } from './errors.js';
import { Link } from './link.js';
import { realTimers } from './timers.js';

export const PROTOCOL_VERSION = 1;
export const HOST_NAME = 'com.gasoline.host';

export class Connector {
  /**
   * @param {object} opts
   * @param {() => chrome.runtime.Port} opts.connect opens a native port
   * @param {() => (object|Promise<object>)} opts.hello the hello params
   * @param {(method: string, params: object) => Promise<unknown>} opts.onRequest
   * @param {(method: string, params: unknown) => void} [opts.onEvent]
   *   events other than the host's link.* ones
   * @param {(state: string, detail: object) => void} [opts.onState] link
   *   state changes, for the agent panel: connecting, ready {daemon},
   *   closed {reason, retry_in_ms}, daemon_unavailable {reason}
   * @param {() => (string|undefined)} [opts.lastError]
   * @param {(text: string) => void} [opts.log]
   * @param {typeof realTimers} [opts.timers]
   * @param {Backoff} [opts.backoff]
   * @param {number} [opts.helloTimeoutMs]
   */
  constructor(opts) {
    this.opts = opts;
    this.log = opts.log ?? (() => {});
    this.timers = opts.timers ?? realTimers;
    this.backoff = opts.backoff ?? new Backoff();
    this.helloTimeoutMs = opts.helloTimeoutMs ?? 15_000;
    this.link = null;
    this.ready = false;
    this.daemon = null; // the hello result
    this.retryTimer = null;
    this.stopped = false;
  }

  /** Connects unless connected, connecting or waiting to retry. */
  start() {
    this.stopped = false;
    if (this.link || this.retryTimer !== null) return;
    this.open();
  }

  /** Closes the link for good (tests, shutdown). */
  stop() {
    this.stopped = true;
    if (this.retryTimer !== null) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.link?.close('stopped');
  }

  /** Sends an event to the daemon if the handshake is done (see Link.notify). */
  notify(method, params, opts) {
    return this.ready ? this.link.notify(method, params, opts) : false;
  }

  open() {
    this.emitState('connecting');
    let port;
    try {
      port = this.opts.connect();
    } catch (err) {
      this.retry(`connect failed: ${errorText(err)}`);
      return;
    }
    const link = new Link(port, {
      onRequest: this.opts.onRequest,
      onEvent: (method, params) => this.event(method, params),
      onClose: (reason) => this.closed(link, reason),
      lastError: this.opts.lastError,
      log: this.log,
      timers: this.timers,
    });
    this.link = link;
    this.ready = false;
    const failed = (err) =>
      link.close(`hello failed: ${err?.code ?? errorText(err)}`);
    const send = (params) =>
      link
        .request('hello', params, { timeoutMs: this.helloTimeoutMs })
        .then((result) => this.greeted(link, result), failed);
    let params;
    try {
      params = this.opts.hello();
    } catch (err) {
      failed(err);
      return;
    }
    if (typeof params?.then === 'function') params.then(send, failed);
    else send(params);
  }

  greeted(link, result) {
    if (link !== this.link || link.closed) return;
    if (result?.protocol !== PROTOCOL_VERSION) {
      link.close(`hello failed: daemon speaks protocol ${result?.protocol}`);
      return;
    }
    this.ready = true;
    this.daemon = result;
    this.backoff.reset();
    this.log(`link ready (daemon ${result.version})`);
    this.emitState('ready', { daemon: result });
  }

  closed(link, reason) {
    if (link !== this.link) return;
    this.link = null;
    this.ready = false;
    if (this.stopped) {
      this.log(`link closed: ${reason}`);
      this.emitState('closed', { reason });
      return;
    }
    this.retry(reason);
  }

  retry(reason) {
    const delay = this.backoff.next();
    this.log(`link closed: ${reason}; retry in ${delay} ms`);
    this.emitState('closed', { reason, retry_in_ms: delay });
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) this.open();
    }, delay);
  }

  event(method, params) {
    if (method === 'link.reconnected') {
      this.log(`daemon reconnected (daemon ${params?.daemon_version})`);
      this.emitState('ready', {
        daemon: { ...this.daemon, version: params?.daemon_version },
      });
    } else if (method === 'link.daemon_unavailable') {
      this.log('daemon unavailable; the host keeps retrying');
      this.emitState('daemon_unavailable', { reason: params?.message });
    } else {
      this.opts.onEvent?.(method, params);
    }
  }

  /** Tells opts.onState; a throwing observer never breaks the link. */
  emitState(name, detail = {}) {
    try {
      this.opts.onState?.(name, detail);
    } catch (err) {
      this.log(`link state observer failed: ${errorText(err)}`);
    }
  }
}
