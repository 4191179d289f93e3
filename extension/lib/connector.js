// Keeps one Link to the native host alive: connectNative, hello handshake,
// reconnect with capped exponential backoff (reset after a good hello), and
// the host's own events (link.reconnected, link.daemon_unavailable,
// link.daemon_stopped). After a deliberate stop the link stays open and
// waits: for the user's Start (startDaemon → the host's daemon.start) or
// for a daemon started elsewhere (link.reconnected).

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
   * @param {(method: string, params: object, reply: {part: (value: object) => boolean}) => Promise<unknown>} opts.onRequest
   * @param {(method: string, params: unknown) => void} [opts.onEvent]
   *   events other than the host's link.* ones
   * @param {(state: string, detail: object) => void} [opts.onState] link
   *   state changes, for the agent panel: connecting, ready {daemon},
   *   closed {reason, retry_in_ms}, daemon_unavailable {reason},
   *   stopped {reason}
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
    const failed = (err) => this.helloFailed(link, err);
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

  helloFailed(link, err) {
    if (err?.code === 'daemon_stopped' && link === this.link && !link.closed) {
      // Stopped on purpose: keep the port, so the user's Start reaches
      // the host, which also replays this hello when a daemon comes.
      this.emitState('stopped', { reason: err.message });
      return;
    }
    link.close(`hello failed: ${err.code ?? errorText(err)}`);
  }

  /**
   * The user's Start after a deliberate stop: the native host starts the
   * daemon (and replays hello, link.reconnected follows).
   * @returns {Promise<unknown>} {started, daemon_version, daemon_pid}
   */
  startDaemon() {
    if (!this.link || this.link.closed) {
      const err = new Error('the extension is not connected to gasoline-host');
      err.code = 'not_connected';
      err.retryable = true;
      return Promise.reject(err);
    }
    return this.link.request('daemon.start', {}, { timeoutMs: 30_000 });
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
      this.daemon = {
        ...this.daemon,
        version: params?.daemon_version,
        daemon_pid: params?.daemon_pid ?? this.daemon?.daemon_pid,
      };
      this.ready = true; // the host replayed our hello to this daemon
      this.backoff.reset();
      this.emitState('ready', { daemon: this.daemon });
    } else if (method === 'link.daemon_stopped') {
      this.log('Gasoline was stopped on purpose; waiting for a start');
      this.ready = false;
      this.emitState('stopped', { reason: params?.message });
    } else if (method === 'link.error') {
      // The host's notice before it closes (e.g. message_too_large).
      this.log(`host error ${params?.code}: ${params?.message}`);
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
