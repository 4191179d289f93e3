// Drives the panel: the port to the worker, the daemon's answers and
// events into the PanelModel, the user's decisions out to the daemon, and a
// render after every change. No DOM here: main.js passes render in.

import { errorText } from '../lib/errors.js';
import { realTimers } from '../lib/timers.js';
import { PanelClient } from './client.js';
import { PanelModel } from './model.js';
import { parseMinutes } from './view.js';

export const TICK_MS = 1000;
/** How often the status (sessions, versions) is re-read while ready. */
export const STATUS_EVERY_TICKS = 5;

export class PanelController {
  /**
   * @param {object} opts
   * @param {() => chrome.runtime.Port} opts.connect a port to the worker
   * @param {(model: PanelModel, now: number) => void} opts.render
   * @param {typeof realTimers} [opts.timers]
   * @param {() => number} [opts.now] epoch milliseconds
   * @param {import('../lib/backoff.js').Backoff} [opts.backoff]
   */
  constructor(opts) {
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
  }

  start() {
    this.client.start();
    this.render();
    this.scheduleTick();
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
    else this.model.portClosed(now);
    this.render();
  }

  event(method, params) {
    if (method === 'link.state') {
      if (this.model.linkChanged(params)) this.refresh();
    } else if (method === 'approval.event') {
      this.model.approvalEvent(params);
      // Sessions, the policy version and counters may have moved with it.
      this.refreshStatus();
    }
    this.render();
  }

  /** Re-reads the pending requests and the status. */
  refresh() {
    return Promise.all([this.refreshPending(), this.refreshStatus()]);
  }

  async refreshPending() {
    const mark = this.model.mark();
    try {
      const res = await this.client.request('approvals.list');
      this.model.setPending(res?.pending, mark);
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

  /**
   * The user pressed a decision button.
   * @param {string} id request_id
   * @param {'once'|'site'|'deny'} decision
   * @param {string} [minutesText] the minutes input, for 'site'
   */
  async decide(id, decision, minutesText) {
    const m = this.model;
    if (!m.pending.has(id) || m.busy.has(id)) return;
    const params = { request_id: id, decision };
    if (decision === 'site') {
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
