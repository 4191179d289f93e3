// The cdp.* methods: send (attaching on demand), attach, detach, detach_all,
// and how their chrome.debugger failures are explained: a cancel by the
// user, a closed or replaced tab, a second target_closed after the one
// automatic re-attach, or a plain detach.

import {
  ProtocolError,
  asProtocolError,
  badRequest,
  canceledByUser,
  mapChromeError,
  restrictedPage,
  tabGoneTwice,
  targetClosed,
} from './errors.js';
import {
  InFlight,
  SEND_TIMEOUT_DEFAULT_MS,
  SEND_TIMEOUT_MAX_MS,
} from './inflight.js';
import * as need from './params.js';
import { navigationRefused } from './restricted.js';

export class CdpMethods {
  /**
   * @param {object} opts
   * @param {typeof chrome.debugger} opts.debugger
   * @param {typeof chrome.tabs} opts.tabs
   * @param {import('./attachments.js').Attachments} opts.attachments
   * @param {import('./idle.js').IdleDetacher} opts.idle
   * @param {import('./tabwatch.js').TabWatch} opts.watch
   * @param {import('./timers.js').realTimers} [opts.timers]
   * @param {(text: string) => void} [opts.log]
   */
  constructor(opts) {
    this.dbg = opts.debugger;
    this.tabs = opts.tabs;
    this.attachments = opts.attachments;
    this.idle = opts.idle;
    this.watch = opts.watch;
    this.log = opts.log ?? (() => {});
    this.inflight = new InFlight({ timers: opts.timers });
  }

  /** name -> handler, for the relay's method table. */
  methods() {
    return {
      'cdp.attach': (p) => this.attach(p),
      'cdp.detach': (p) => this.detach(p),
      'cdp.detach_all': async () => ({ tab_ids: await this.detachAll() }),
      'cdp.send': (p) => this.send(p),
      'cdp.sequence': (p) => this.sequence(p),
    };
  }

  /**
   * Runs CDP commands on one tab in order, in one link round trip (each
   * as cdp.send would). A step with overlap is sent together with the next
   * one, and both are awaited before the step after. A step that fails, or
   * with stop_on_exception answers exceptionDetails, ends the run: later
   * steps are skipped, but those marked always (clean-up) still run.
   * @returns {Promise<{results: Array<object>}>} per step {result},
   *   {error} or {skipped: true}
   */
  async sequence(p) {
    const tabId = need.tabId(p);
    const steps = p.steps;
    if (!Array.isArray(steps) || steps.length === 0 || steps.length > 16) {
      throw badRequest('steps must be a list of 1 to 16 CDP commands');
    }
    const timeoutMs = need.integer(p, 'timeout_ms', {
      optional: true,
      min: 1,
      max: SEND_TIMEOUT_MAX_MS,
    });
    for (const s of steps) {
      if (s === null || typeof s !== 'object') {
        throw badRequest('each step must be an object');
      }
      need.string(s, 'method');
      need.object(s, 'params');
      need.string(s, 'session_id', { optional: true });
      for (const flag of ['always', 'stop_on_exception', 'overlap']) {
        need.boolean(s, flag, false);
      }
    }
    const run = async (s) => {
      try {
        const result = await this.send({
          tab_id: tabId,
          method: s.method,
          params: s.params ?? {},
          session_id: s.session_id,
          timeout_ms: timeoutMs,
        });
        const threw = s.stop_on_exception && !!result.exceptionDetails;
        return { out: { result }, failed: threw };
      } catch (err) {
        return {
          out: { error: asProtocolError(err, s.method).toJSON() },
          failed: true,
        };
      }
    };
    const results = [];
    let stopped = false;
    const runs = (s) => !stopped || s.always === true;
    for (let i = 0; i < steps.length; i++) {
      const batch = [steps[i]];
      if (steps[i].overlap && i + 1 < steps.length) batch.push(steps[++i]);
      const done = await Promise.all(
        batch.map((s) => (runs(s) ? run(s) : null)),
      );
      for (const d of done) {
        results.push(d ? d.out : { skipped: true });
        if (d?.failed) stopped = true;
      }
    }
    return { results };
  }

  async send(p) {
    const tabId = need.tabId(p);
    const method = need.string(p, 'method');
    const params = need.object(p, 'params');
    const sessionId = need.string(p, 'session_id', { optional: true });
    const timeoutMs =
      need.integer(p, 'timeout_ms', {
        optional: true,
        min: 1,
        max: SEND_TIMEOUT_MAX_MS,
      }) ?? SEND_TIMEOUT_DEFAULT_MS;
    this.inflight.check(tabId, sessionId, method);
    if (method === 'Page.navigate') {
      const why = navigationRefused(params.url);
      if (why) throw restrictedPage(tabId, why);
    }
    const target = sessionId ? { tabId, sessionId } : { tabId };
    const att = this.attachments;
    const reattach = !att.isCanceled(tabId) && att.takeReattach(tabId);
    const detaches = att.detachCount(tabId);
    this.idle.begin(tabId);
    try {
      await att.ensure(tabId);
      const sent = this.dbg.sendCommand(target, method, params);
      const result = await this.inflight.run(
        tabId,
        sessionId,
        method,
        sent,
        timeoutMs,
      );
      return result ?? {};
    } catch (err) {
      throw await this.explain(err, tabId, { reattach, detaches });
    } finally {
      this.idle.end(tabId, att.has(tabId));
    }
  }

  async attach(p) {
    const tabId = need.tabId(p);
    if (need.boolean(p, 'force', false)) this.attachments.allow(tabId);
    this.attachments.takeReattach(tabId);
    try {
      await this.attachments.ensure(tabId);
    } catch (err) {
      throw await this.explain(err, tabId);
    }
    this.idle.touch(tabId);
    return {};
  }

  async detach(p) {
    const tabId = need.tabId(p);
    this.idle.clear(tabId);
    try {
      await this.attachments.detach(tabId);
    } catch (err) {
      throw await this.explain(err, tabId);
    }
    return {};
  }

  /** Detaches every tab this extension is attached to; returns their ids. */
  async detachAll() {
    const ids = new Set(this.attachments.attached());
    try {
      for (const t of await this.dbg.getTargets()) {
        if (t.attached && t.tabId !== undefined) ids.add(t.tabId);
      }
    } catch (err) {
      this.log(`getTargets failed: ${err?.message}`);
    }
    const done = [];
    for (const tabId of ids) {
      this.idle.clear(tabId);
      try {
        if (await this.attachments.detach(tabId)) done.push(tabId);
      } catch {
        // closed meanwhile
      }
    }
    return done.sort((a, b) => a - b);
  }

  /**
   * Maps a chrome.debugger failure for a command on tabId.
   * @param {{reattach?: boolean, detaches?: number}} [cmd] whether the
   *   command re-attached after target_closed, and the tab's detach count
   *   when it started
   */
  async explain(err, tabId, cmd = {}) {
    const e = mapChromeError(err, { tabId });
    if (e.code !== 'detached' && e.code !== 'tab_closed') return e;
    this.attachments.forget(tabId);
    if (this.attachments.isCanceled(tabId)) return canceledByUser(tabId);
    if (e.code === 'tab_closed') return this.closed(tabId, e);
    if (!(await this.tabExists(tabId))) {
      return this.closed(tabId, mapChromeError('No tab with id', { tabId }));
    }
    if (this.attachments.detachCount(tabId) <= (cmd.detaches ?? Infinity)) {
      return e; // detached by us (cdp.detach) or without a notice
    }
    return cmd.reattach ? tabGoneTwice(tabId) : targetClosed(tabId);
  }

  /** tab_closed, naming the tab that replaced tabId if Chrome swapped it. */
  closed(tabId, e) {
    const now = this.watch.successor(tabId);
    if (now === undefined) return e;
    return new ProtocolError(
      'tab_closed',
      `tab ${tabId} was replaced by tab ${now} (Chrome discarded or ` +
        `swapped its page); use tab ${now}`,
      false,
      { replaced_by: now },
    );
  }

  async tabExists(tabId) {
    try {
      await this.tabs.get(tabId);
      return true;
    } catch {
      return false;
    }
  }
}
