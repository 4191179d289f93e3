// The cdp.* methods: send (attaching on demand), attach, detach, detach_all,
// and how their chrome.debugger failures are explained: a cancel by the
// user, a closed or replaced tab, a second target_closed after the one
// automatic re-attach, or a plain detach.

import {
  ProtocolError,
  asProtocolError,
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
import { Texts } from './texts.js';

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
    this.issuing = new Map(); // tabId -> Promise: its background steps sent
    this.texts = new Texts();
  }

  /** name -> handler, for the relay's method table. */
  methods() {
    return {
      'cdp.attach': (p) => this.attach(p),
      'cdp.detach': (p) => this.detach(p),
      'cdp.detach_all': async () => ({ tab_ids: await this.detachAll() }),
      'cdp.send': (p) => this.send(p),
      'cdp.sequence': (p, reply) => this.sequence(p, reply),
    };
  }

  /**
   * Runs CDP commands on one tab in order, in one link round trip (each
   * as cdp.send would). A step with overlap is sent together with the next
   * one, and both are awaited before the step after. A step that fails, or
   * with stop_on_exception answers exceptionDetails, ends the run: later
   * steps are skipped, but those marked always (clean-up) still run. A
   * Runtime.evaluate step may name its expression by expression_text, a
   * text this request's texts carries or an earlier one did (texts.js). The
   * steps marked background, all at the end, are sent in order once the
   * others are answered (with the last of them when it has overlap), and
   * the answer does not wait for them (their
   * results read {background: true}); the tab's next command is not sent
   * before they are (issue), and a failure among them is logged. The
   * result of a step marked ahead goes up through reply.part as soon as
   * the steps after it are sent (a screenshot's image travels while the
   * mask check runs); its result then reads {ahead: true}.
   * @param {{part?: (value: object) => boolean}} [reply]
   * @returns {Promise<{results: Array<object>}>} per step {result},
   *   {error}, {skipped: true}, {background: true} or {ahead: true}
   */
  async sequence(p, reply = {}) {
    const tabId = need.tabId(p);
    await this.texts.keep(p.texts);
    const steps = need.steps(p).map((s) => this.texts.resolve(s, p.texts));
    const timeoutMs = need.integer(p, 'timeout_ms', {
      optional: true,
      min: 1,
      max: SEND_TIMEOUT_MAX_MS,
    });
    const run = async (s, opts) => {
      try {
        const result = await this.send(
          {
            tab_id: tabId,
            method: s.method,
            params: s.params ?? {},
            session_id: s.session_id,
            timeout_ms: timeoutMs,
          },
          opts,
        );
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
    const first = steps.findIndex((s) => s.background === true);
    const awaited = first < 0 ? steps : steps.slice(0, first);
    const behind = first < 0 ? [] : steps.slice(first);
    let sent = null; // per background step: whether it was sent
    const sendBehind = () => {
      sent = behind.map(runs);
      const go = behind.filter((_, k) => sent[k]);
      if (go.length > 0) this.background(tabId, go, run);
    };
    let ahead = []; // indexes of results to send ahead
    const sendAhead = () => {
      for (const k of ahead) {
        if (reply.part?.({ step: k, result: results[k].result })) {
          results[k] = { ahead: true };
        }
      }
      ahead = [];
    };
    for (let i = 0; i < awaited.length; i++) {
      const batch = [awaited[i]];
      const together = awaited[i].overlap && i + 1 < awaited.length;
      if (together) batch.push(awaited[++i]);
      const issued = [];
      const running = batch.map((s) => {
        if (!runs(s)) return null;
        let go;
        issued.push(new Promise((resolve) => (go = resolve)));
        const d = run(s, { onIssued: go });
        d.then(go); // refused before it was sent
        return d;
      });
      // The last awaited step with overlap: the background steps go with
      // it, and the answer still waits for it alone.
      if (!together && awaited[i].overlap && behind.length > 0) sendBehind();
      if (ahead.length > 0) {
        await Promise.all(issued); // the results go once the commands did
        sendAhead();
      }
      const done = await Promise.all(running);
      done.forEach((d, k) => {
        if (d && !d.failed && batch[k].ahead) ahead.push(results.length);
        results.push(d ? d.out : { skipped: true });
        if (d?.failed) stopped = true;
      });
    }
    sendAhead();
    if (sent === null) sendBehind();
    behind.forEach((_, k) => {
      results.push(sent[k] ? { background: true } : { skipped: true });
    });
    return { results };
  }

  /**
   * Sends steps after the answer of their sequence, one by one in order
   * (each once the one before is sent), and holds the tab's next commands
   * until the last is sent: chrome.debugger keeps a tab's commands in the
   * order they are sent, so none can overtake them. Their answers are not
   * awaited by anything (a hung one holds nothing); failures are logged.
   */
  background(tabId, steps, run) {
    const before = this.issuing.get(tabId);
    const issued = (async () => {
      if (before) await before;
      for (const s of steps) {
        let sent;
        const out = new Promise((resolve) => (sent = resolve));
        run(s, { onIssued: sent, ungated: true }).then((d) => {
          sent(); // refused before it was sent
          if (d.failed) {
            const e = d.out.error ?? { message: 'exceptionDetails' };
            this.log(
              `background ${s.method} on tab ${tabId} failed: ${e.code ?? ''} ${e.message}`,
            );
          }
        });
        await out;
      }
    })();
    this.issuing.set(tabId, issued);
    issued.then(() => {
      if (this.issuing.get(tabId) === issued) this.issuing.delete(tabId);
    });
  }

  /**
   * @param {object} p the cdp.send params
   * @param {{onIssued?: () => void, ungated?: boolean}} [opts] internal:
   *   called once chrome.debugger has the command; not held behind the
   *   tab's background steps (they are those steps)
   */
  async send(p, opts = {}) {
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
    const pending = opts.ungated ? undefined : this.issuing.get(tabId);
    if (pending) await pending;
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
      opts.onIssued?.();
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
