// The tabs.* methods (PROTOCOL.md "Served by the extension"): query, get,
// create (optionally into a group, optionally waiting for the load), close,
// activate, group and ungroup.

import { ProtocolError, badRequest, mapChromeError } from './errors.js';
import * as need from './params.js';
import { navigationRefused } from './restricted.js';
import { NO_GROUP } from './tabwatch.js';

export const LOAD_TIMEOUT_DEFAULT_MS = 15_000;
export const LOAD_TIMEOUT_MAX_MS = 60_000;
export const GROUP_TITLE_DEFAULT = 'Gasoline';
export const GROUP_COLORS = Object.freeze([
  'grey',
  'blue',
  'red',
  'yellow',
  'green',
  'pink',
  'purple',
  'cyan',
  'orange',
]);

/** The protocol's view of a chrome.tabs.Tab. */
export function tabInfo(t) {
  return {
    id: t.id,
    url: t.url || t.pendingUrl || '',
    title: t.title ?? '',
    active: Boolean(t.active),
    window_id: t.windowId,
    status: t.status ?? '',
    group_id: t.groupId ?? NO_GROUP,
  };
}

/** Runs fn, mapping what chrome.* throws to a ProtocolError. */
async function chromeCall(fn, ctx) {
  try {
    return await fn();
  } catch (err) {
    throw mapChromeError(err, ctx);
  }
}

export class TabMethods {
  /**
   * @param {object} opts
   * @param {typeof chrome.tabs} opts.tabs
   * @param {typeof chrome.tabGroups} opts.tabGroups
   * @param {import('./tabwatch.js').TabWatch} opts.watch
   */
  constructor(opts) {
    this.tabs = opts.tabs;
    this.groupsApi = opts.tabGroups;
    this.watch = opts.watch;
  }

  /** name -> handler, for the relay's method table. */
  methods() {
    return {
      'tabs.activate': (p) => this.activate(p),
      'tabs.close': (p) => this.close(p),
      'tabs.create': (p) => this.create(p),
      'tabs.get': (p) => this.get(p),
      'tabs.group': (p) => this.group(p),
      'tabs.query': (p) => this.query(p),
      'tabs.reload': (p) => this.reload(p),
      'tabs.ungroup': (p) => this.ungroup(p),
    };
  }

  async query(p) {
    const url = need.urlPatterns(p);
    const tabs = await chromeCall(() =>
      this.tabs.query(url === undefined ? {} : { url }),
    );
    return { tabs: tabs.map(tabInfo) };
  }

  async get(p) {
    const tabId = need.tabId(p);
    return { tab: tabInfo(await this.getTab(tabId)) };
  }

  getTab(tabId) {
    return chromeCall(() => this.tabs.get(tabId), { tabId });
  }

  async create(p) {
    const url = need.string(p, 'url');
    const why = navigationRefused(url);
    if (why) {
      throw new ProtocolError(
        'restricted_page',
        `no tab is opened on ${why}: no agent may drive such a page`,
      );
    }
    const active = need.boolean(p, 'active', false);
    const groupId = need.integer(p, 'group_id', {
      optional: true,
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    });
    const waitUntil = need.oneOf(p, 'wait_until', ['load']);
    const timeoutMs =
      need.integer(p, 'timeout_ms', {
        optional: true,
        min: 1,
        max: LOAD_TIMEOUT_MAX_MS,
      }) ?? LOAD_TIMEOUT_DEFAULT_MS;
    const props = { url, active };
    if (groupId !== undefined) {
      const group = await this.existingGroup(groupId);
      if (!group) {
        throw badRequest(
          `tab group ${groupId} does not exist (its last tab closed); ` +
            `create the tab without group_id and call tabs.group`,
        );
      }
      props.windowId = group.windowId;
    }
    let tab = await chromeCall(() => this.tabs.create(props));
    this.watch.know(tab.id);
    if (groupId !== undefined) await this.joinNew(tab.id, groupId);
    if (waitUntil === 'load') tab = await this.load(tab.id, timeoutMs);
    else if (groupId !== undefined) tab = { ...tab, groupId };
    return { tab: tabInfo(tab) };
  }

  /** Puts a just-created tab in groupId; closes it again if that fails. */
  async joinNew(tabId, groupId) {
    this.watch.expect(tabId, groupId);
    try {
      await this.tabs.group({ groupId, tabIds: [tabId] });
    } catch (err) {
      this.watch.unexpect(tabId);
      await this.tabs.remove(tabId).catch(() => {});
      throw mapChromeError(err, { tabId });
    }
    this.watch.join(groupId, [tabId]);
  }

  /** Waits for tabId's status "complete"; returns the tab then. */
  async load(tabId, timeoutMs) {
    const loaded = this.watch.waitForLoad(tabId, timeoutMs);
    loaded.catch(() => {}); // observed below; avoid an unhandled rejection
    let now;
    try {
      now = await this.getTab(tabId);
    } catch (err) {
      this.watch.removed(tabId);
      throw err;
    }
    if (now.status === 'complete') this.watch.settle(tabId);
    await loaded;
    return this.getTab(tabId);
  }

  async close(p) {
    const tabId = need.tabId(p);
    await chromeCall(() => this.tabs.remove(tabId), { tabId });
    return {};
  }

  /** Reloads tabId (a crashed or discarded one too). */
  async reload(p) {
    const tabId = need.tabId(p);
    await chromeCall(() => this.tabs.reload(tabId), { tabId });
    const now = this.watch.successor(tabId) ?? tabId;
    this.watch.know(now);
    return { tab: tabInfo(await this.getTab(now)) };
  }

  async activate(p) {
    const tabId = need.tabId(p);
    const tab = await chromeCall(
      () => this.tabs.update(tabId, { active: true }),
      { tabId },
    );
    this.watch.know(tabId);
    return { tab: tabInfo(tab) };
  }

  async group(p) {
    const tabIds = need.tabIds(p);
    const title = need.string(p, 'title', { optional: true });
    const color = need.oneOf(p, 'color', GROUP_COLORS);
    const wanted = need.integer(p, 'group_id', {
      optional: true,
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    });
    const reuse =
      wanted !== undefined && (await this.existingGroup(wanted)) !== null;
    const options = { tabIds };
    if (reuse) {
      options.groupId = wanted;
    } else {
      const first = await this.getTab(tabIds[0]);
      options.createProperties = { windowId: first.windowId };
    }
    for (const t of tabIds) this.watch.expect(t, reuse ? wanted : undefined);
    let groupId;
    try {
      groupId = await this.tabs.group(options);
    } catch (err) {
      for (const t of tabIds) this.watch.unexpect(t);
      throw mapChromeError(err);
    }
    this.watch.join(groupId, tabIds);
    if (!reuse) {
      const props = { title: title ?? GROUP_TITLE_DEFAULT };
      if (color) props.color = color;
      await chromeCall(() => this.groupsApi.update(groupId, props));
    }
    return { group_id: groupId };
  }

  async ungroup(p) {
    const tabIds = need.tabIds(p);
    for (const t of tabIds) this.watch.expect(t, NO_GROUP);
    try {
      await this.tabs.ungroup(tabIds);
    } catch (err) {
      for (const t of tabIds) this.watch.unexpect(t);
      throw mapChromeError(err);
    }
    return {};
  }

  /** The tab group groupId, or null when it no longer exists. */
  async existingGroup(groupId) {
    try {
      return await this.groupsApi.get(groupId);
    } catch {
      return null;
    }
  }
}
