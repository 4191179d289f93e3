// The methods the daemon calls on the extension (PROTOCOL.md "Served by the
// extension"), the shapes of the events the extension sends back, and what
// happens to a tab's debugger when Chrome detaches it, it idles or it closes.

import { Attachments } from './attachments.js';
import { CdpMethods } from './cdp.js';
import { unknownMethod } from './errors.js';
import {
  IDLE_DETACH_DEFAULT_MS,
  IDLE_DETACH_MAX_MS,
  IDLE_DETACH_MIN_MS,
  IdleDetacher,
} from './idle.js';
import { InjectMethods } from './inject.js';
import * as need from './params.js';
import { Stored } from './store.js';
import { TabMethods } from './tabs.js';
import { TabWatch } from './tabwatch.js';

export { tabInfo } from './tabs.js';
export { MAX_EVENT_BYTES, cdpDetached, cdpEvent } from './events.js';

export class Relay {
  /**
   * @param {object} api
   * @param {typeof chrome.tabs} api.tabs
   * @param {typeof chrome.debugger} api.debugger
   * @param {typeof chrome.tabGroups} [api.tabGroups]
   * @param {{local?: chrome.storage.StorageArea,
   *   session?: chrome.storage.StorageArea}} [api.storage]
   * @param {string} [api.selfId] this extension's id
   * @param {(method: string, params: object) => void} [api.notify] events
   *   to the daemon
   * @param {import('./timers.js').realTimers} [api.timers]
   * @param {(text: string) => void} [api.log]
   * @param {(path: string) => Promise<string>} [api.loadFile] reads a file
   *   of the extension package (cdp.inject)
   */
  constructor(api) {
    this.api = api;
    this.log = api.log ?? (() => {});
    this.notify = api.notify ?? (() => {});
    const storage = api.storage ?? {};
    this.config = new Stored(storage.local, 'config', this.log);
    this.attachments = new Attachments({
      debugger: api.debugger,
      tabs: api.tabs,
      selfId: api.selfId ?? '',
      canceledStore: new Stored(storage.session, 'canceled_tabs', this.log),
      onAttached: (tabId) => this.attached(tabId),
      log: this.log,
    });
    this.idle = new IdleDetacher({
      onIdle: (tabId) => this.idleDetach(tabId),
      timers: api.timers,
    });
    this.watch = new TabWatch({
      notify: this.notify,
      groupStore: new Stored(storage.session, 'groups', this.log),
      timers: api.timers,
    });
    this.tabs = new TabMethods({
      tabs: api.tabs,
      tabGroups: api.tabGroups,
      watch: this.watch,
    });
    this.cdp = new CdpMethods({
      debugger: api.debugger,
      tabs: api.tabs,
      attachments: this.attachments,
      idle: this.idle,
      watch: this.watch,
      timers: api.timers,
      log: this.log,
    });
    this.inject = new InjectMethods({
      send: (p) => this.cdp.send(p),
      loadFile:
        api.loadFile ?? (() => Promise.reject(new Error('no package files'))),
    });
    this.methods = {
      ...this.tabs.methods(),
      ...this.cdp.methods(),
      ...this.inject.methods(),
      'config.set': (p) => this.configSet(p),
      ping: (p) => ({ pong: true, echo: p.echo ?? null }),
    };
    this.ready = null;
  }

  /**
   * Restores persisted state and detaches from tabs a previous worker left
   * attached (their idle clocks died with it). Requests wait for it.
   */
  start() {
    this.ready ??= Promise.all([
      this.attachments.load(),
      this.watch.load((groupId) => this.tabsInGroup(groupId)),
      this.loadConfig(),
      this.cdp.detachAll(),
    ]).catch((err) => this.log(`start failed: ${err?.message}`));
    return this.ready;
  }

  /**
   * Serves one request; throws a ProtocolError on failure.
   * @param {{part?: (value: object) => boolean}} [reply] sends part of the
   *   reply ahead of it (cdp.sequence's steps marked ahead)
   */
  async handle(method, params, reply = {}) {
    const fn = Object.hasOwn(this.methods, method)
      ? this.methods[method]
      : null;
    if (!fn) throw unknownMethod(method);
    await this.start();
    return fn(params ?? {}, reply);
  }

  /** chrome.debugger.onDetach */
  detached(tabId, reason) {
    this.attachments.detached(tabId, reason);
    this.idle.clear(tabId);
  }

  /** chrome.tabs.onRemoved */
  removed(tabId) {
    this.attachments.removed(tabId);
    this.idle.clear(tabId);
    this.watch.removed(tabId);
    this.cdp.inflight.recovered(tabId);
  }

  /** chrome.tabs.onReplaced: Chrome swapped removed for added (a discard). */
  replaced(added, removed) {
    this.attachments.replaced(added, removed);
    this.idle.clear(removed);
    this.watch.replaced(added, removed);
    this.cdp.inflight.recovered(removed);
  }

  /**
   * chrome.tabs.onCreated: a tab that a tab of ours opened is reported
   * (tabs.opened) and followed from now on; the user's other tabs are not.
   * Chrome puts a tab opened from a grouped tab into that group, so a tab
   * born in one of our groups is a session's popup; its openerTabId is
   * sent only when it names a tab of ours (Chrome names the active tab as
   * the opener of a popup of a background tab).
   * @returns {{tab_id: number, url: string, opener_tab_id?: number, group_id?: number} | null}
   */
  created(tab) {
    const opener = tab?.openerTabId;
    const byOpener = Number.isInteger(opener) && this.watch.known.has(opener);
    const inGroup = this.watch.groups.has(tab?.groupId);
    if (!byOpener && !inGroup) return null;
    this.watch.know(tab.id);
    if (inGroup) this.watch.join(tab.groupId, [tab.id]);
    const p = { tab_id: tab.id, url: tab.pendingUrl || tab.url || '' };
    if (byOpener) p.opener_tab_id = opener;
    if (inGroup) p.group_id = tab.groupId;
    return p;
  }

  /** chrome.tabs.onUpdated */
  updated(tabId, change) {
    if (change.status === 'loading') this.cdp.inflight.recovered(tabId);
    if (typeof change.url === 'string') this.urlChanged(tabId, change.url);
    this.watch.updated(tabId, change);
  }

  /**
   * A tab went to a page no agent may drive (a file: page, an extension's
   * page, a browser page): its debugger is detached at once and every
   * command on it is refused until it shows an allowed page again.
   */
  urlChanged(tabId, url) {
    const why = this.attachments.urlChanged(tabId, url);
    if (!why || !this.attachments.has(tabId)) return;
    this.idle.clear(tabId);
    this.attachments
      .detach(tabId)
      .then((was) => {
        if (!was) return;
        this.log(`detached from tab ${tabId}: it shows ${why}`);
        this.notify('cdp.detached', {
          tab_id: tabId,
          reason: 'restricted_page',
        });
      })
      .catch(() => {}); // closed meanwhile; tabs.removed tells the daemon
  }

  /** Inspector.targetCrashed: fail the page's commands now, not never. */
  crashed(tabId, sessionId) {
    this.log(`tab ${tabId}${sessionId ? ' (child session)' : ''} crashed`);
    this.cdp.inflight.crash(tabId, sessionId);
  }

  /** Inspector.targetReloadedAfterCrash */
  reloaded(tabId, sessionId) {
    if (!sessionId) this.cdp.inflight.recovered(tabId);
  }

  /** Target.attachedToTarget: let an OOPIF's own children attach too. */
  childAttached(tabId, params) {
    if (params?.targetInfo?.type !== 'iframe' || !params.sessionId) return;
    this.attachments.autoAttach({ tabId, sessionId: params.sessionId });
  }

  attached(tabId) {
    this.watch.know(tabId);
    this.notify('cdp.attached', { tab_id: tabId });
  }

  async idleDetach(tabId) {
    if (!this.attachments.has(tabId)) return;
    let was = false;
    try {
      was = await this.attachments.detach(tabId);
    } catch {
      return; // closed meanwhile; tabs.removed tells the daemon
    }
    if (!was) return;
    this.log(`idle: detached from tab ${tabId}`);
    this.notify('cdp.detached', { tab_id: tabId, reason: 'idle' });
  }

  async configSet(p) {
    const ms = need.integer(p, 'idle_detach_ms', {
      optional: true,
      min: IDLE_DETACH_MIN_MS,
      max: IDLE_DETACH_MAX_MS,
    });
    if (ms !== undefined) {
      this.idle.setMs(ms);
      await this.config.save({ idle_detach_ms: ms });
    }
    return { idle_detach_ms: this.idle.ms };
  }

  async loadConfig() {
    const ms = (await this.config.load())?.idle_detach_ms;
    const ok =
      Number.isSafeInteger(ms) &&
      ms >= IDLE_DETACH_MIN_MS &&
      ms <= IDLE_DETACH_MAX_MS;
    this.idle.setMs(ok ? ms : IDLE_DETACH_DEFAULT_MS);
  }

  async tabsInGroup(groupId) {
    await this.api.tabGroups.get(groupId);
    return (await this.api.tabs.query({ groupId })).map((t) => t.id);
  }
}
