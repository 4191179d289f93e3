// The long script texts cdp.sequence runs again and again (a screenshot's
// mask: ~7 KB each capture), kept by the extension so the daemon can name
// one by its SHA-256 instead of sending it. A request from the host that
// fits one 4 KiB read of Chrome's native-messaging pipe reaches the worker
// in one hop; every further 4 KiB is another (bench/README.md). The texts
// live as long as the worker; the daemon sends a text again when told it
// is not kept (unknown_text).

import { ProtocolError, badRequest } from './errors.js';
import { isObject } from './message.js';

/** What the store keeps at most, in UTF-16 units of text. */
export const MAX_KEPT = 1 << 20;
const KEY = /^[0-9a-f]{64}$/;

async function sha256(text) {
  const d = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(text),
  );
  return Array.from(new Uint8Array(d), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
}

export function unknownText(key) {
  return new ProtocolError(
    'unknown_text',
    `the extension does not keep the text ${key.slice(0, 12)}… (its worker ` +
      'restarted since); send it again in texts',
    true,
  );
}

export class Texts {
  /** @param {{maxKept?: number}} [opts] */
  constructor(opts = {}) {
    this.max = opts.maxKept ?? MAX_KEPT;
    this.kept = new Map(); // key -> text, least recently used first
    this.size = 0;
  }

  /**
   * Keeps each text of texts ({sha256 hex: text}) after checking its key
   * is its SHA-256; a key that is not is bad_request.
   */
  async keep(texts) {
    if (texts === undefined) return;
    if (!isObject(texts)) throw badRequest('texts must be an object');
    for (const [key, text] of Object.entries(texts)) {
      if (!KEY.test(key) || typeof text !== 'string') {
        throw badRequest('texts maps SHA-256 hex keys to strings');
      }
      if ((await sha256(text)) !== key) {
        throw badRequest(`text ${key.slice(0, 12)}… is not its SHA-256`);
      }
      this.put(key, text);
    }
  }

  put(key, text) {
    if (text.length > this.max) return; // used by this request only
    this.drop(key);
    this.kept.set(key, text);
    this.size += text.length;
    for (const [k] of this.kept) {
      if (this.size <= this.max) break;
      this.drop(k);
    }
  }

  drop(key) {
    const t = this.kept.get(key);
    if (t === undefined) return;
    this.kept.delete(key);
    this.size -= t.length;
  }

  /**
   * The step with its expression_text resolved into params.expression,
   * or the step as it is; throws unknown_text when the text is not kept.
   * @param {Record<string, string>} [extra] the request's own texts
   */
  resolve(step, extra) {
    const key = step.expression_text;
    if (key === undefined) return step;
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw badRequest('expression_text must be a SHA-256 hex key');
    }
    if (step.method !== 'Runtime.evaluate') {
      throw badRequest('expression_text is for Runtime.evaluate only');
    }
    const text = this.kept.get(key) ?? extra?.[key];
    if (text === undefined) throw unknownText(key);
    if (this.kept.has(key)) this.put(key, text); // most recently used
    return { ...step, params: { ...step.params, expression: text } };
  }
}
