// The service worker's side of the agent panel. Panel pages (extension
// pages only) connect with chrome.runtime.connect({name: 'panel'}); their
// requests go to the daemon on the native link, restricted to the panel
// methods of PROTOCOL.md, and every connected panel hears the link's state
// changes and the daemon's approval and conversation events. The panel is UI only: it never
// reaches the daemon any other way, and the agent never reaches the panel.
// A panel's terminal stream goes through termbridge.js.

import { errorText } from './errors.js';
import { TERM_METHODS, TERM_UP, TermBridge } from './termbridge.js';

export const PANEL_PORT = 'panel';

/** The daemon methods a panel may call; anything else is refused. */
export const PANEL_METHODS = Object.freeze([
  'approvals.list',
  'approvals.decide',
  'grants.revoke',
  'panel.status',
  'panel.chat',
  'panel.history',
  'panel.providers',
  'panel.export',
  'panel.tab',
  'panel.share',
  'panel.unshare',
  'remotes.list',
  'remotes.revoke',
  'daemon.start', // served by the native host: the Start button
  ...TERM_METHODS,
]);

/** Daemon events forwarded to the panels. */
export const PANEL_EVENTS = Object.freeze(['approval.event', 'panel.event']);

export const PANEL_REQUEST_TIMEOUT_MS = 10_000;
/** Methods that may take longer: an export redacts a whole session. */
export const PANEL_SLOW_TIMEOUT_MS = Object.freeze({ 'panel.export': 30_000 });

/** The wire form of a failure, for a panel reply. */
export function panelError(err) {
  return {
    code: typeof err?.code === 'string' ? err.code : 'internal',
    message: typeof err?.message === 'string' ? err.message : errorText(err),
    retryable: err?.retryable === true,
  };
}

/**
 * A request function over a Connector: the link's request when the
 * handshake is done, else a not_connected error the panel can show.
 */
export function viaConnector(connector) {
  return (method, params) => {
    if (method === 'daemon.start') return connector.startDaemon();
    if (!connector.ready || !connector.link) {
      const err = new Error(
        'the extension is not connected to the Gasoline daemon yet',
      );
      err.code = 'not_connected';
      err.retryable = true;
      return Promise.reject(err);
    }
    return connector.link.request(method, params, {
      timeoutMs: PANEL_SLOW_TIMEOUT_MS[method] ?? PANEL_REQUEST_TIMEOUT_MS,
    });
  };
}

export class PanelBridge {
  /**
   * @param {object} opts
   * @param {(method: string, params: object) => Promise<unknown>} opts.request
   *   sends a request to the daemon (see viaConnector)
   * @param {(method: string, params: object) => boolean} [opts.notify]
   *   sends an event to the daemon (a panel's terminal stream)
   * @param {string} opts.selfId chrome.runtime.id: only its pages may connect
   * @param {(text: string) => void} [opts.log]
   * @param {() => number} [opts.now] epoch milliseconds
   */
  constructor(opts) {
    this.request = opts.request;
    this.selfId = opts.selfId;
    this.log = opts.log ?? (() => {});
    this.now = opts.now ?? Date.now;
    this.ports = new Set();
    this.epoch = 0; // counts readies: a new one may be a new daemon
    // The link as the panel sees it; down_since is when it last stopped
    // being ready (or when this worker started).
    this.link = { state: 'connecting', down_since: this.now() };
    this.terms = new TermBridge({
      request: this.request,
      notify: opts.notify ?? (() => false),
      send: (port, msg) => this.send(port, msg),
      log: this.log,
    });
  }

  /**
   * chrome.runtime.onConnect listener: takes ports named 'panel' from this
   * extension's own pages and ignores the rest.
   */
  connect(port) {
    if (port?.name !== PANEL_PORT) return false;
    if (!this.trusted(port.sender)) {
      this.log('panel port refused: not one of this extension’s pages');
      port.disconnect();
      return true;
    }
    const onMessage = (msg) => this.receive(port, msg);
    const onDisconnect = () => {
      port.onMessage.removeListener(onMessage);
      port.onDisconnect.removeListener(onDisconnect);
      this.ports.delete(port);
      this.terms.portClosed(port);
    };
    port.onMessage.addListener(onMessage);
    port.onDisconnect.addListener(onDisconnect);
    this.ports.add(port);
    this.send(port, { method: 'link.state', params: this.link });
    return true;
  }

  trusted(sender) {
    if (!sender || sender.id !== this.selfId || !sender.url) return false;
    try {
      const u = new URL(sender.url);
      return u.protocol === 'chrome-extension:' && u.host === this.selfId;
    } catch {
      return false;
    }
  }

  /** Connector onState: records the link's state and tells every panel. */
  linkState(state, detail = {}) {
    const wasReady = this.link.state === 'ready';
    const link = { state };
    if (state === 'ready') link.epoch = ++this.epoch;
    if (typeof detail.reason === 'string') link.reason = detail.reason;
    if (Number.isFinite(detail.retry_in_ms)) {
      link.retry_in_ms = detail.retry_in_ms;
      link.retry_at = this.now() + detail.retry_in_ms;
    }
    if (detail.daemon) {
      link.daemon = {
        version: detail.daemon.version,
        pid: detail.daemon.daemon_pid,
      };
    } else if (this.link.daemon) {
      link.daemon = this.link.daemon;
    }
    if (state !== 'ready') {
      link.down_since = wasReady ? this.now() : this.link.down_since;
    }
    this.link = link;
    this.terms.linkChanged();
    this.broadcast({ method: 'link.state', params: link });
  }

  /**
   * Connector onEvent: forwards the daemon events meant for panels.
   * @returns {boolean} whether the event was a panel event
   */
  event(method, params) {
    if (this.terms.toPanel(method, params)) return true;
    if (!PANEL_EVENTS.includes(method)) return false;
    this.broadcast({ method, params });
    return true;
  }

  async receive(port, msg) {
    if (msg?.id === undefined && TERM_UP.includes(msg?.method)) {
      this.terms.fromPanel(port, msg.method, msg.params);
      return;
    }
    const id = msg?.id;
    if (!Number.isInteger(id) || id < 1 || typeof msg.method !== 'string') {
      this.log('panel message dropped: not a request');
      return;
    }
    if (!PANEL_METHODS.includes(msg.method)) {
      this.send(port, {
        id,
        error: {
          code: 'unknown_method',
          message: `the panel may not call "${msg.method}"`,
          retryable: false,
        },
      });
      return;
    }
    const params =
      msg.params && typeof msg.params === 'object' && !Array.isArray(msg.params)
        ? msg.params
        : {};
    let reply;
    try {
      reply = { id, result: (await this.request(msg.method, params)) ?? {} };
      if (msg.method === 'term.open') {
        this.terms.opened(port, reply.result);
        // The panel left meanwhile: its new view closes at once.
        if (!this.ports.has(port)) this.terms.portClosed(port);
      }
      if (msg.method === 'term.close') this.terms.closed(params);
    } catch (err) {
      this.log(`panel ${msg.method} failed: ${err?.code ?? 'error'}`);
      reply = { id, error: panelError(err) };
    }
    if (this.ports.has(port)) this.send(port, reply);
  }

  broadcast(msg) {
    for (const port of [...this.ports]) this.send(port, msg);
  }

  send(port, msg) {
    try {
      port.postMessage(msg);
    } catch (err) {
      this.log(`panel port dropped: ${errorText(err)}`);
      this.ports.delete(port);
    }
  }
}

/**
 * Registers the panel's chrome.* listeners; called once at the top level of
 * the service worker. The toolbar button opens the side panel.
 */
export function wirePanel(api, bridge, log = () => {}) {
  api.runtime.onConnect.addListener((port) => bridge.connect(port));
  api.sidePanel
    ?.setPanelBehavior({ openPanelOnActionClick: true })
    ?.catch?.((err) => log(`side panel behaviour not set: ${errorText(err)}`));
}
