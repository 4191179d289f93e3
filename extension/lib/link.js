// One Link per native port: request/reply matching, event and chunk
// dispatch, replies to the daemon's requests. Closing is idempotent and
// removes the port listeners. Reconnecting is connector.js's job.

import { ChunkAssembler, MAX_MESSAGE_BYTES } from './chunks.js';
import {
  ProtocolError,
  asProtocolError,
  badRequest,
  errorText,
} from './errors.js';
import { classify } from './message.js';
import { realTimers } from './timers.js';

/** Rejects the extension's own requests when the link closes under them. */
export class LinkClosedError extends Error {
  constructor(reason) {
    super(`link closed: ${reason}`);
    this.name = 'LinkClosedError';
    this.code = 'link_closed';
  }
}

/** UTF-8 size of msg's JSON, exact once it could be near maxBytes. */
export function jsonSize(msg, maxBytes = MAX_MESSAGE_BYTES) {
  const text = JSON.stringify(msg);
  if (text.length * 3 <= maxBytes) return text.length;
  return new TextEncoder().encode(text).length;
}

/**
 * An upper bound of the UTF-8 size of v's JSON, found without serialising
 * it (postMessage serialises a reply once; a screenshot is megabytes): a
 * string's UTF-16 unit takes at most 6 bytes (\uXXXX; a surrogate pair is
 * 4 bytes of UTF-8), anything JSON.stringify would treat specially
 * (toJSON, a non-plain object, a cycle, deep nesting) is Infinity, which
 * sends the caller to jsonSize.
 */
export function jsonBound(v, depth = 0) {
  switch (typeof v) {
    case 'string':
      return 6 * v.length + 2;
    case 'number':
      return 24;
    case 'boolean':
      return 5;
    case 'undefined':
      return 4; // null in an array; a key left out in an object
    case 'object':
      break;
    default:
      return Infinity;
  }
  if (v === null) return 4;
  if (depth > 64) return Infinity;
  let n = 2;
  if (Array.isArray(v)) {
    for (const x of v) n += jsonBound(x, depth + 1) + 1;
    return n;
  }
  const proto = Object.getPrototypeOf(v);
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in v) {
    return Infinity;
  }
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    n += 6 * k.length + 4 + jsonBound(v[k], depth + 1);
  }
  return n;
}

export class Link {
  /**
   * @param {chrome.runtime.Port} port an open native port
   * @param {object} opts
   * @param {(method: string, params: object, reply: {part: (value: object) => boolean}) => Promise<unknown>} opts.onRequest
   *   serves the peer's requests; throw a ProtocolError to answer an error;
   *   reply.part sends part of the reply ahead of it
   * @param {(method: string, params: unknown) => void} [opts.onEvent]
   * @param {(reason: string) => void} [opts.onClose] called once
   * @param {() => (string|undefined)} [opts.lastError] chrome.runtime.lastError text
   * @param {(text: string) => void} [opts.log]
   * @param {typeof realTimers} [opts.timers]
   * @param {number} [opts.maxBytes] the largest message sent to the host
   */
  constructor(port, opts) {
    this.port = port;
    this.onRequest = opts.onRequest;
    this.onEvent = opts.onEvent ?? (() => {});
    this.onClose = opts.onClose ?? (() => {});
    this.lastError = opts.lastError ?? (() => undefined);
    this.log = opts.log ?? (() => {});
    this.timers = opts.timers ?? realTimers;
    this.maxBytes = opts.maxBytes ?? MAX_MESSAGE_BYTES;
    this.chunks = new ChunkAssembler({ log: this.log });
    this.pending = new Map(); // id -> {resolve, reject, timer}
    this.nextId = 1;
    this.dropped = 0; // events over a size cap
    this.closed = false;
    this.handleMessage = (msg) => this.receive(msg);
    this.handleDisconnect = () =>
      this.close(this.lastError() ?? 'port disconnected');
    port.onMessage.addListener(this.handleMessage);
    port.onDisconnect.addListener(this.handleDisconnect);
  }

  /**
   * Sends a request to the peer.
   * @returns {Promise<unknown>} the result; rejects with the peer's
   *   ProtocolError, a timeout ProtocolError or a LinkClosedError
   */
  request(method, params, { timeoutMs = 30_000 } = {}) {
    if (this.closed) {
      return Promise.reject(new LinkClosedError('already closed'));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.pending.delete(id);
        reject(
          new ProtocolError(
            'timeout',
            `no reply to ${method} in ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.post({ id, method, params });
    });
  }

  /**
   * Sends an event; returns false when it could not be sent.
   * @param {{maxBytes?: number, label?: string}} [opts] a lower size cap for
   *   this event, and how to name it in the log (never its contents)
   */
  notify(method, params, opts = {}) {
    const msg = { method, params };
    const cap = Math.min(opts.maxBytes ?? this.maxBytes, this.maxBytes);
    const error = this.unsendable(msg, `event ${method}`, cap);
    if (error) {
      this.dropped += 1;
      if (this.dropped <= 10 || this.dropped % 100 === 0) {
        this.log(
          `event ${opts.label ?? method} dropped: ${error.code}` +
            `${error.size ? ` (${error.size} bytes, cap ${cap})` : ''}; ` +
            `${this.dropped} events dropped on this link`,
        );
      }
      return false;
    }
    return this.post(msg);
  }

  close(reason) {
    if (this.closed) return;
    this.closed = true;
    this.port.onMessage.removeListener(this.handleMessage);
    this.port.onDisconnect.removeListener(this.handleDisconnect);
    try {
      this.port.disconnect();
    } catch {
      // already gone
    }
    for (const { reject, timer } of this.pending.values()) {
      this.timers.clearTimeout(timer);
      reject(new LinkClosedError(reason));
    }
    this.pending.clear();
    this.onClose(reason);
  }

  post(msg) {
    if (this.closed) return false;
    try {
      this.port.postMessage(msg);
      return true;
    } catch (err) {
      this.close(`send failed: ${errorText(err)}`);
      return false;
    }
  }

  receive(msg) {
    if (this.closed) return;
    if (classify(msg) === 'chunk') {
      const whole = this.chunks.push(msg.chunk);
      if (!whole) return;
      if (classify(whole.message) === 'chunk') {
        this.log('chunked message dropped: it holds another chunk');
        return;
      }
      msg = whole.message;
    } else if (this.chunks.pending) {
      this.chunks.discard('another frame arrived mid-message');
    }
    this.dispatch(msg);
  }

  dispatch(msg) {
    switch (classify(msg)) {
      case 'request':
        this.serve(msg.id, msg.method, msg.params ?? {});
        return;
      case 'reply':
        this.settle(msg);
        return;
      case 'event':
        try {
          this.onEvent(msg.method, msg.params);
        } catch (err) {
          this.log(`event ${msg.method} handler failed: ${errorText(err)}`);
        }
        return;
      case 'bad_request':
        this.reply(msg.id, 'request', {
          error: badRequest('malformed request'),
        });
        return;
      default:
        this.log('malformed message dropped');
    }
  }

  settle(msg) {
    const p = this.pending.get(msg.id);
    if (!p) {
      this.log(`reply #${msg.id} matches no request; dropped`);
      return;
    }
    this.pending.delete(msg.id);
    this.timers.clearTimeout(p.timer);
    if ('result' in msg) {
      p.resolve(msg.result);
      return;
    }
    const e = msg.error ?? {};
    p.reject(
      new ProtocolError(
        typeof e.code === 'string' ? e.code : 'internal',
        typeof e.message === 'string'
          ? e.message
          : 'error reply without message',
        e.retryable === true,
      ),
    );
  }

  async serve(id, method, params) {
    let outcome;
    // part sends part of this request's reply ahead of it (the reply.part
    // event, PROTOCOL.md); false when it could not go, and the part then
    // stays in the reply.
    const part = (value) => {
      const msg = { method: 'reply.part', params: { id, part: value } };
      return !this.closed && !this.unsendable(msg, `a part of ${method}`)
        ? this.post(msg)
        : false;
    };
    try {
      outcome = {
        result: (await this.onRequest(method, params, { part })) ?? {},
      };
    } catch (err) {
      outcome = { error: asProtocolError(err, method) };
    }
    this.reply(id, method, outcome);
  }

  reply(id, method, outcome) {
    if (this.closed) {
      this.log(`reply to ${method} #${id} dropped: link closed`);
      return;
    }
    const msg = { id, result: outcome.result };
    const error =
      outcome.error ?? this.unsendable(msg, `the result of ${method}`);
    if (!error) {
      this.post(msg);
      return;
    }
    this.log(`${method} #${id} failed: ${error.code}`);
    this.post({ id, error: error.toJSON() });
  }

  /** Why msg cannot go to the host (a ProtocolError), or null. */
  unsendable(msg, what, maxBytes = this.maxBytes) {
    if (jsonBound(msg) <= maxBytes) return null; // no need to serialise it
    let size;
    try {
      size = jsonSize(msg, maxBytes);
    } catch (err) {
      return asProtocolError(err, `encoding ${what}`);
    }
    if (size <= maxBytes) return null;
    const e = new ProtocolError(
      'message_too_large',
      `${what} is ${size} bytes, over the ${maxBytes}-byte limit; ` +
        'ask for less (e.g. a smaller screenshot or a narrower query)',
    );
    e.size = size;
    return e;
  }
}
