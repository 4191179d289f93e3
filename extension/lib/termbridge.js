// The service worker's side of the panel's Terminal tab (PROTOCOL.md,
// "Terminal"). A panel opens a terminal view with term.open (a request,
// forwarded like the other panel methods); from then on its view's
// events travel both ways on the native link: the panel's keystrokes,
// resizes and acknowledgements up, the output and the exit down, to that
// panel only. A panel that goes away closes its views on the daemon (the
// daemon hangs their processes up); a link that goes away took them with
// it, and their panels are told.

/** Requests a panel may make about its terminal (forwarded as requests). */
export const TERM_METHODS = Object.freeze([
  'term.open',
  'term.close',
  'term.settings.get',
  'term.settings.set',
]);

/** Events a panel sends about a view it opened. */
export const TERM_UP = Object.freeze(['term.input', 'term.resize', 'term.ack']);

/** Events the daemon sends about a view, for the panel that opened it. */
export const TERM_DOWN = Object.freeze([
  'term.output',
  'term.exit',
  'term.dropped',
]);

export class TermBridge {
  /**
   * @param {object} opts
   * @param {(method: string, params: object) => Promise<unknown>} opts.request
   *   a request to the daemon
   * @param {(method: string, params: object) => boolean} opts.notify an
   *   event to the daemon; false when the link cannot take it
   * @param {(port: object, msg: object) => void} opts.send to a panel port
   * @param {(text: string) => void} [opts.log]
   */
  constructor(opts) {
    this.request = opts.request;
    this.notify = opts.notify;
    this.send = opts.send;
    this.log = opts.log ?? (() => {});
    this.owners = new Map(); // term_id → panel port
  }

  /** A term.open reply reached port: the view is that panel's. */
  opened(port, result) {
    const id = result?.term_id;
    if (typeof id === 'string' && id) this.owners.set(id, port);
  }

  /** term.close answered: the view is gone. */
  closed(params) {
    this.owners.delete(params?.term_id);
  }

  /**
   * A panel's event about one of its views goes to the daemon; anything
   * else is dropped.
   */
  fromPanel(port, method, params) {
    const id = params?.term_id;
    if (!TERM_UP.includes(method) || this.owners.get(id) !== port) {
      this.log(`panel ${method} dropped: not one of its terminals`);
      return;
    }
    if (!this.notify(method, params)) {
      this.end(id, 'the link to Gasoline is down');
    }
  }

  /**
   * A daemon event about a view goes to the panel that opened it.
   * @returns {boolean} whether method is the terminal's
   */
  toPanel(method, params) {
    if (!TERM_DOWN.includes(method)) return false;
    const port = this.owners.get(params?.term_id);
    if (port) this.send(port, { method, params });
    return true;
  }

  /** A panel went away: its views are closed on the daemon. */
  portClosed(port) {
    for (const [id, owner] of [...this.owners]) {
      if (owner !== port) continue;
      this.owners.delete(id);
      this.request('term.close', { term_id: id }).catch((err) =>
        this.log(`term.close failed: ${err?.code ?? 'error'}`),
      );
    }
  }

  /**
   * The link went down or reached a new daemon: every view went with the
   * old link; their panels are told, as an exit.
   */
  linkChanged() {
    for (const id of [...this.owners.keys()]) {
      this.end(id, 'the link to the Gasoline daemon was lost');
    }
  }

  /** Tells id's panel that its view is gone, and forgets it. */
  end(id, reason) {
    const port = this.owners.get(id);
    this.owners.delete(id);
    if (port) {
      this.send(port, {
        method: 'term.exit',
        params: { term_id: id, error: reason, closed: true },
      });
    }
  }
}
