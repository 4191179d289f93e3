// Turns chrome.tabs.onUpdated into the tabs.updated, tabs.ungrouped and
// tabs.grouped events, and serves waits for a tab to finish loading.
//
// tabs.updated goes out only for tabs the relay works with ("known": created,
// attached, activated or grouped through it), never for the user's other
// tabs. tabs.ungrouped goes out when a tab leaves a group the relay made or
// joined, tabs.grouped when a tab joins one (the user shares it: drag, or
// the tab strip's "Add tab to group"), unless the relay itself moved it.

import { ProtocolError, mapChromeError } from './errors.js';
import { realTimers } from './timers.js';

export const NO_GROUP = -1; // chrome.tabGroups.TAB_GROUP_ID_NONE
const ANY_GROUP = Symbol('any group'); // expectation: a group being created

// changeInfo field -> tabs.updated field
const FIELDS = [
  ['url', 'url'],
  ['title', 'title'],
  ['status', 'status'],
  ['groupId', 'group_id'],
];

export class TabWatch {
  /**
   * @param {object} opts
   * @param {(method: string, params: object) => void} opts.notify
   * @param {import('./store.js').Stored} [opts.groupStore] our group ids
   * @param {typeof realTimers} [opts.timers]
   */
  constructor(opts) {
    this.notify = opts.notify;
    this.groupStore = opts.groupStore;
    this.timers = opts.timers ?? realTimers;
    this.known = new Set(); // tabIds that get tabs.updated
    this.groups = new Set(); // groupIds the relay made or joined
    this.members = new Map(); // tabId -> groupId, for tabs in our groups
    this.expected = new Map(); // tabId -> groupId (or ANY_GROUP) we set
    this.waiters = new Map(); // tabId -> Set<{resolve, reject, timer}>
    this.replacedBy = new Map(); // old tabId -> new tabId (the last 100)
  }

  /**
   * Restores our group ids and their members after a worker restart.
   * @param {(groupId: number) => Promise<number[]>} tabsIn the tab ids of a
   *   group, rejecting when the group no longer exists
   */
  async load(tabsIn) {
    const ids = await this.groupStore?.load();
    if (!Array.isArray(ids)) return;
    for (const g of ids) {
      try {
        this.join(g, await tabsIn(g));
      } catch {
        // the group is gone
      }
    }
    this.persist();
  }

  /** Sends tabs.updated for tabId from now on. */
  know(tabId) {
    this.known.add(tabId);
  }

  /** Records that tabIds are in groupId, a group of ours. */
  join(groupId, tabIds) {
    if (!this.groups.has(groupId)) {
      this.groups.add(groupId);
      this.persist();
    }
    for (const t of tabIds) {
      this.members.set(t, groupId);
      this.known.add(t);
    }
  }

  /** The relay is about to move tabId to groupId (NO_GROUP to ungroup). */
  expect(tabId, groupId = ANY_GROUP) {
    this.expected.set(tabId, groupId);
  }

  /** The move expected for tabId did not happen. */
  unexpect(tabId) {
    this.expected.delete(tabId);
  }

  /** chrome.tabs.onUpdated */
  updated(tabId, change) {
    if (change.status === 'complete') this.settle(tabId);
    if ('groupId' in change) this.groupChanged(tabId, change.groupId);
    if (!this.known.has(tabId)) return;
    const p = { tab_id: tabId };
    let any = false;
    for (const [from, to] of FIELDS) {
      if (change[from] === undefined) continue;
      p[to] = change[from];
      any = true;
    }
    if (any) this.notify('tabs.updated', p);
  }

  groupChanged(tabId, groupId) {
    const old = this.members.get(tabId);
    const exp = this.expected.get(tabId);
    this.expected.delete(tabId);
    const ours = this.groups.has(groupId);
    if (ours) this.members.set(tabId, groupId);
    else this.members.delete(tabId);
    if (old === groupId) return;
    if (exp === ANY_GROUP || exp === groupId) return; // the relay moved it
    if (old !== undefined) {
      this.notify('tabs.ungrouped', { tab_id: tabId, group_id: old });
    }
    if (ours) {
      this.known.add(tabId);
      this.notify('tabs.grouped', { tab_id: tabId, group_id: groupId });
    }
  }

  /** chrome.tabGroups.onRemoved: the group's last tab left. */
  groupRemoved(groupId) {
    if (this.groups.delete(groupId)) this.persist();
  }

  /** chrome.tabs.onRemoved */
  removed(tabId) {
    this.known.delete(tabId);
    this.members.delete(tabId);
    this.expected.delete(tabId);
    const ws = this.waiters.get(tabId);
    if (!ws) return;
    this.waiters.delete(tabId);
    for (const w of ws) {
      this.timers.clearTimeout(w.timer);
      w.reject(mapChromeError('No tab with id', { tabId }));
    }
  }

  /** chrome.tabs.onReplaced: added takes over what removed had. */
  replaced(added, removed) {
    const known = this.known.has(removed);
    const group = this.members.get(removed);
    this.removed(removed);
    if (known) this.known.add(added);
    if (group !== undefined) this.members.set(added, group);
    this.replacedBy.set(removed, added);
    if (this.replacedBy.size > 100) {
      this.replacedBy.delete(this.replacedBy.keys().next().value);
    }
  }

  /** The tab that replaced tabId, if Chrome swapped it lately. */
  successor(tabId) {
    return this.replacedBy.get(tabId);
  }

  /**
   * Resolves when tabId's status becomes "complete" (call loadedNow if it
   * already is). Rejects with timeout after ms, or tab_closed.
   */
  waitForLoad(tabId, ms) {
    return new Promise((resolve, reject) => {
      const w = { resolve, reject, timer: null };
      w.timer = this.timers.setTimeout(() => {
        this.waiters.get(tabId)?.delete(w);
        reject(
          new ProtocolError(
            'timeout',
            `tab ${tabId} did not finish loading within ${ms} ms; it stays ` +
              `open as tab ${tabId}: use it, wait for it or close it`,
            false,
            { tab_id: tabId },
          ),
        );
      }, ms);
      let ws = this.waiters.get(tabId);
      if (!ws) this.waiters.set(tabId, (ws = new Set()));
      ws.add(w);
    });
  }

  /** tabId is known to be loaded (e.g. tabs.get said "complete"). */
  settle(tabId) {
    const ws = this.waiters.get(tabId);
    if (!ws) return;
    this.waiters.delete(tabId);
    for (const w of ws) {
      this.timers.clearTimeout(w.timer);
      w.resolve();
    }
  }

  persist() {
    this.groupStore?.save([...this.groups]);
  }
}
