// cdp.inject: runs a library the extension ships (vendored at build time
// into vendor/) in an execution context of a tab, through chrome.debugger.
// The daemon never holds these files and never sends them over the native
// port (axe-core alone is ~650 KB, most of the 1 MiB frame Chrome allows
// host → extension); it names one from a fixed list and the context to run
// it in (typically an isolated world it created, so the page cannot see or
// change the library).

import { ProtocolError, badRequest } from './errors.js';
import * as need from './params.js';

/** The files cdp.inject may run, by name. Nothing else is reachable. */
export const SCRIPTS = Object.freeze({
  axe: 'vendor/axe/axe.min.js',
});

export class InjectMethods {
  /**
   * @param {object} opts
   * @param {(p: object) => Promise<object>} opts.send cdp.send
   * @param {(path: string) => Promise<string>} opts.loadFile reads a file
   *   of the extension package; rejects when it is missing
   */
  constructor(opts) {
    this.send = opts.send;
    this.loadFile = opts.loadFile;
    this.sources = new Map(); // name -> Promise<string>
  }

  /** name -> handler, for the relay's method table. */
  methods() {
    return { 'cdp.inject': (p) => this.inject(p) };
  }

  async inject(p) {
    const tabId = need.tabId(p);
    const name = need.string(p, 'script');
    if (!Object.hasOwn(SCRIPTS, name)) {
      throw badRequest(
        `script must be one of ${Object.keys(SCRIPTS).join(', ')}`,
      );
    }
    const contextId = need.integer(p, 'context_id', {
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
    });
    const sessionId = need.string(p, 'session_id', { optional: true });
    const expression = await this.source(name);
    const res = await this.send({
      tab_id: tabId,
      ...(sessionId ? { session_id: sessionId } : {}),
      method: 'Runtime.evaluate',
      params: { expression, contextId, silent: true, returnByValue: true },
    });
    const ex = res?.exceptionDetails;
    if (ex) {
      const what = ex.exception?.description?.split('\n')[0] ?? ex.text;
      throw new ProtocolError('cdp_error', `${name} threw: ${what}`);
    }
    return { script: name, bytes: expression.length };
  }

  /** The file's text, read once per worker. A failed read is retried. */
  source(name) {
    let s = this.sources.get(name);
    if (!s) {
      s = this.loadFile(SCRIPTS[name]).catch((err) => {
        this.sources.delete(name);
        throw new ProtocolError(
          'unavailable',
          `the extension has no ${SCRIPTS[name]} (${err?.message ?? err}); ` +
            `it was built without its vendored libraries: run make vendor ` +
            `and reload the extension`,
        );
      });
      this.sources.set(name, s);
    }
    return s;
  }
}

/** Reads a file of the extension package (chrome.runtime.getURL + fetch). */
export function packageFile(runtime, fetchFn = fetch) {
  return async (path) => {
    const res = await fetchFn(runtime.getURL(path));
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return res.text();
  };
}
