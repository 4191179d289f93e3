// Drives the panel: the port to the worker, the daemon's answers and
// events into the PanelModel, the user's decisions and messages out to the
// daemon, and a render after every change. No DOM here: main.js passes
// render (and the browser-bound helpers: storage, active tab, download) in.

import { errorText } from '../lib/errors.js';
import { realTimers } from '../lib/timers.js';
import { PanelClient } from './client.js';
import { PanelModel } from './model.js';
import { parseMinutes } from './view.js';

export const TICK_MS = 1000;
/** The worker allows panel.export 30 s; the panel waits a little more. */
export const EXPORT_TIMEOUT_MS = 35_000;
/** panel.chat's error for a conversation the daemon no longer has. */
export const CONVERSATION_LOST = 'conversation_lost';
/** How often the status (sessions, versions) is re-read while ready. */
export const STATUS_EVERY_TICKS = 5;

/** Whether an approval event made or ended a grant or a plan. */
function grantChanged(ev) {
  if (ev?.type === 'approved') {
    return /^(action:|session$|plan:)/.test(ev.decision ?? '');
  }
  return ev?.type === 'expired' && /^(grt|pln)_/.test(ev.approval_id ?? '');
}

export class PanelController {
  /**
   * @param {object} opts
   * @param {() => chrome.runtime.Port} opts.connect a port to the worker
   * @param {(model: PanelModel, now: number) => void} opts.render
   * @param {typeof realTimers} [opts.timers]
   * @param {() => number} [opts.now] epoch milliseconds
   * @param {import('../lib/backoff.js').Backoff} [opts.backoff]
   * @param {{get: () => Promise<object>, set: (v: object) => Promise<void>}} [opts.storage]
   *   where the conversation id survives the panel being closed
   * @param {() => Promise<{id: number}|null>} [opts.activeTab] the tab the
   *   user is looking at, for panel.chat's tab_id
   * @param {(name: string, text: string) => string} [opts.download] offers
   *   text as a file; returns the blob URL it made
   */
  constructor(opts) {
    this.storage = opts.storage ?? null;
    this.activeTab = opts.activeTab ?? (async () => null);
    this.download = opts.download ?? (() => '');
    this.savedId = null;
    this.historyBusy = false;
    this.renderView = opts.render;
    this.now = opts.now ?? Date.now;
    this.timers = opts.timers ?? realTimers;
    this.model = new PanelModel();
    this.client = new PanelClient({
      connect: opts.connect,
      timers: this.timers,
      backoff: opts.backoff,
      onEvent: (method, params) => this.event(method, params),
      onPort: (state) => this.port(state),
    });
    this.ticks = 0;
    this.tickTimer = null;
    // The Terminal tab's session (terminal.js), when the page has one:
    // it takes the worker's term.* events and hears the port drop.
    this.terminal = opts.terminal ?? null;
  }

  start() {
    this.client.start();
    this.render();
    this.scheduleTick();
    return this.restore();
  }

  /** Picks up the conversation this panel had before it was closed. */
  async restore() {
    if (!this.storage) return;
    let saved;
    try {
      saved = await this.storage.get();
    } catch {
      return;
    }
    const id = saved?.conversation_id;
    if (typeof id !== 'string' || !id || this.model.conv.id) return;
    this.savedId = id;
    this.model.dispatch({ type: 'restore', conversation_id: id });
    if (this.linkReady()) this.fetchHistory();
    this.render();
  }

  /** Applies a conversation action and keeps the stored id in step. */
  dispatch(action) {
    this.model.dispatch(action);
    const id = this.model.conv.id;
    if (id !== this.savedId) {
      this.savedId = id;
      this.storage?.set({ conversation_id: id ?? '' })?.catch?.(() => {});
    }
  }

  render() {
    this.renderView(this.model, this.now());
  }

  scheduleTick() {
    this.tickTimer = this.timers.setTimeout(() => this.tick(), TICK_MS);
  }

  /** Once a second: countdowns, the error threshold, a periodic status. */
  tick() {
    this.ticks += 1;
    if (this.ticks % STATUS_EVERY_TICKS === 0 && this.linkReady()) {
      this.refreshStatus();
      if (this.model.conv.needHistory) this.fetchHistory();
    }
    this.render();
    this.scheduleTick();
  }

  linkReady() {
    return this.model.port === 'open' && this.model.link?.state === 'ready';
  }

  port(state) {
    const now = this.now();
    if (state === 'connecting') this.model.portConnecting(now);
    else if (state === 'open') this.model.portOpened();
    else {
      this.model.portClosed(now);
      this.terminal?.portClosed();
    }
    this.render();
  }

  event(method, params) {
    if (method.startsWith('term.')) {
      this.terminal?.event(method, params);
      return;
    }
    if (method === 'link.state') {
      if (this.model.linkChanged(params)) this.refresh();
    } else if (method === 'approval.event') {
      this.model.approvalEvent(params);
      // Sessions, the policy version and counters may have moved with it.
      this.refreshStatus();
      if (grantChanged(params)) this.refreshPending();
    } else if (method === 'panel.event') {
      this.dispatch({ type: 'event', event: params });
      if (this.model.conv.needHistory) this.fetchHistory();
    }
    this.render();
  }

  /**
   * Re-reads everything once the link is ready: the pending requests, the
   * status, the providers, and what the conversation missed meanwhile.
   */
  refresh() {
    return Promise.all([
      this.refreshPending(),
      this.refreshStatus(),
      this.refreshProviders(),
      this.fetchHistory(),
    ]);
  }

  /** A daemon without the chat methods: the chat is switched off. */
  noChat(err) {
    if (err?.code !== 'unknown_method') return false;
    this.model.chat = 'unavailable';
    return true;
  }

  async refreshProviders() {
    try {
      const res = await this.client.request('panel.providers');
      this.model.setProviders(res);
      this.model.chat = 'available';
    } catch (err) {
      if (!this.noChat(err)) this.model.providersFailed(errorText(err));
    }
    this.render();
  }

  /**
   * Asks for the conversation's events after the cursor (a reconnect, a
   * gap); a conversation the daemon lost starts again, saying so.
   */
  async fetchHistory() {
    const conv = this.model.conv;
    if (!conv.id || this.historyBusy) return;
    this.historyBusy = true;
    const params = { conversation_id: conv.id, after_seq: conv.cursor };
    try {
      const result = await this.client.request('panel.history', params);
      this.dispatch({
        type: 'history',
        conversation_id: params.conversation_id,
        result,
      });
    } catch (err) {
      this.noChat(err); // otherwise retried on the next ready or tick
    } finally {
      this.historyBusy = false;
    }
    this.render();
    if (this.model.conv.needHistory && this.linkReady()) this.fetchHistory();
  }

  /** Whether the user can send a message now. */
  canSend() {
    return this.model.canSend();
  }

  /**
   * The user sent a message: it goes to the daemon, whose turn runs in the
   * background and comes back as panel.event pushes.
   * @returns {Promise<boolean>} whether the daemon took it
   */
  async send(message, { keepNotice = false } = {}) {
    const text = String(message ?? '').trim();
    if (!text || !this.canSend()) return false;
    const local = this.model.conv.nextLocal;
    this.dispatch({
      type: 'send',
      text,
      at: new Date(this.now()).toISOString(),
      keepNotice,
    });
    this.render();
    const params = { message: text };
    if (this.model.conv.id) params.conversation_id = this.model.conv.id;
    const provider = this.model.selectedProvider();
    if (provider) params.provider = provider.name;
    try {
      const tab = await this.activeTab();
      if (Number.isInteger(tab?.id) && tab.id > 0) params.tab_id = tab.id;
    } catch {
      // no tab: the agent works without one
    }
    let ok = false;
    try {
      const res = await this.client.request('panel.chat', params);
      this.dispatch({
        type: 'started',
        local,
        conversation_id: res?.conversation_id,
        turn_id: res?.turn_id,
      });
      ok = true;
    } catch (err) {
      if (err?.code === CONVERSATION_LOST && params.conversation_id) {
        // The daemon restarted and forgot it: say so, and send the message
        // again as the first of a new conversation.
        this.dispatch({ type: 'lost' });
        this.render();
        return this.send(text, { keepNotice: true });
      }
      this.noChat(err);
      this.dispatch({ type: 'chat_failed', local, error: errorText(err) });
    }
    this.render();
    return ok;
  }

  /** The user picked a provider in the selector. */
  selectProvider(name) {
    const list = this.model.providers?.list ?? [];
    this.model.provider = list.some((p) => p.name === name) ? name : null;
    this.render();
  }

  /** The user starts a new conversation. */
  newConversation() {
    this.dispatch({ type: 'new' });
    this.render();
  }

  /** The user pressed Export: the redacted export, offered as a file. */
  async exportConversation() {
    const m = this.model;
    if (m.exported?.busy) return;
    m.exported = { busy: true };
    this.render();
    const id = m.conv.id;
    try {
      const res = await this.client.request(
        'panel.export',
        id ? { conversation_id: id } : {},
        { timeoutMs: EXPORT_TIMEOUT_MS },
      );
      const json = JSON.stringify(res ?? {}, null, 2);
      const stamp = new Date(this.now())
        .toISOString()
        .replace(/[:.]/g, '-')
        .slice(0, 19);
      const name = `gasoline-export-${stamp}.json`;
      const url = this.download(name, json);
      m.exported = { name, size: new TextEncoder().encode(json).length, url };
    } catch (err) {
      m.exported = { error: `Export failed: ${errorText(err)}` };
    }
    this.render();
  }

  async refreshPending() {
    const mark = this.model.mark();
    try {
      const res = await this.client.request('approvals.list');
      this.model.setPending(res?.pending, mark);
      this.model.setGrants(res?.grants, res?.plans);
    } catch {
      // The link state says why; the next ready re-fetches.
    }
    this.render();
  }

  async refreshStatus() {
    try {
      this.model.setStatus(await this.client.request('panel.status'));
    } catch (err) {
      this.model.statusFailed(errorText(err));
    }
    this.render();
  }

  /** The user pressed Start after a deliberate stop. */
  async startDaemon() {
    const m = this.model;
    if (m.starting) return;
    m.starting = true;
    m.startError = '';
    this.render();
    try {
      await this.client.request('daemon.start', {}, { timeoutMs: 35_000 });
    } catch (err) {
      m.startError = `Starting failed: ${errorText(err)}`;
    }
    m.starting = false;
    this.render();
  }

  /**
   * The user pressed Revoke on a grant or a plan: what it covered asks
   * again from now on.
   * @param {string} id a grant's or a plan's id
   */
  async revoke(id) {
    const m = this.model;
    if (m.revoking.has(id)) return;
    m.revoking.add(id);
    m.grantError = '';
    this.render();
    try {
      await this.client.request('grants.revoke', { grant_id: id });
    } catch (err) {
      m.grantError = `Could not revoke: ${errorText(err)}`;
    }
    m.revoking.delete(id);
    await this.refreshPending();
  }

  /**
   * The user pressed a decision button.
   * @param {string} id request_id
   * @param {'once'|'action'|'session'|'deny'} decision
   * @param {string} [minutesText] the minutes input, for 'action'
   * @param {number[]} [ticks] a plan's high-risk items the user ticked
   */
  async decide(id, decision, minutesText, ticks) {
    const m = this.model;
    if (!m.pending.has(id) || m.busy.has(id)) return;
    const params = { request_id: id, decision };
    if (decision === 'once' && ticks?.length) params.ticks = ticks;
    if (decision === 'action') {
      const parsed = parseMinutes(minutesText);
      if (parsed.error) {
        m.decideFailed(id, parsed.error);
        this.render();
        return;
      }
      params.minutes = parsed.minutes;
    }
    m.deciding(id, decision);
    this.render();
    try {
      await this.client.request('approvals.decide', params);
      m.forget(id);
    } catch (err) {
      const verb = decision === 'deny' ? 'deny' : 'approve';
      m.decideFailed(id, `Could not ${verb}: ${errorText(err)}`);
      this.refreshPending(); // it may have expired or been decided elsewhere
    }
    this.render();
  }
}
