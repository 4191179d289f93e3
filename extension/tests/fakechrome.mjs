// A fake of the chrome.* APIs the relay uses: tabs, tabGroups, debugger and
// storage, with their events. State is plain maps the tests can poke.

import { FakeEvent, flush } from './fakes.mjs';

export const SELF_ID = 'efmkjhahfhlpnniaiinagccopblhbdkc';

class FakeArea {
  constructor() {
    this.data = {};
  }
  async get(key) {
    const out = {};
    for (const k of Array.isArray(key) ? key : [key]) {
      if (k in this.data) out[k] = structuredClone(this.data[k]);
    }
    return out;
  }
  async set(obj) {
    Object.assign(this.data, structuredClone(obj));
  }
}

const noTab = (id) => new Error(`No tab with id: ${id}.`);

export function fakeChrome() {
  const tabs = new Map();
  const groups = new Map(); // id -> {id, windowId, title, color}
  const attached = new Set();
  const calls = [];
  const sendHooks = []; // (target, method, params) => result | undefined
  let nextTab = 5;
  let nextGroup = 1;
  const onUpdated = new FakeEvent();
  const onRemoved = new FakeEvent();
  const onCreated = new FakeEvent();
  const onReplaced = new FakeEvent();
  const groupRemoved = new FakeEvent();
  const onEvent = new FakeEvent();
  const onDetach = new FakeEvent();

  const tabOf = (id) => {
    if (!tabs.has(id)) throw noTab(id);
    return tabs.get(id);
  };
  const update = (id, change) => {
    const t = tabOf(id);
    Object.assign(t, change);
    onUpdated.emit(id, change, { ...t });
  };
  const setGroup = (id, groupId) => {
    const old = tabOf(id).groupId;
    if (old === groupId) return;
    update(id, { groupId });
    if (old !== -1 && ![...tabs.values()].some((t) => t.groupId === old)) {
      groups.delete(old);
      groupRemoved.emit({ id: old });
    }
  };

  const c = {
    calls,
    tabsMap: tabs,
    groupsMap: groups,
    attached,
    sendHooks,
    addTab(props = {}) {
      const id = props.id ?? nextTab;
      nextTab = Math.max(nextTab, id + 1);
      tabs.set(id, {
        id,
        url: 'http://a/',
        title: 'A',
        active: false,
        windowId: 1,
        status: 'complete',
        groupId: -1,
        ...props,
      });
      return id;
    },
    update,
    /** The browser closes tab id (as the user would). */
    close(id) {
      tabs.delete(id);
      if (attached.delete(id)) onDetach.emit({ tabId: id }, 'target_closed');
      onRemoved.emit(id, {});
    },
    /** The browser ends debugging of tab id. */
    detach(id, reason) {
      attached.delete(id);
      onDetach.emit({ tabId: id }, reason);
    },
    /** The page in tab opener opens a tab (a link with a target, window.open). */
    open(opener, props = {}) {
      const id = c.addTab({
        url: '',
        pendingUrl: 'http://a/popup',
        title: '',
        status: 'loading',
        openerTabId: opener,
        ...props,
      });
      onCreated.emit({ ...tabs.get(id) });
      return id;
    },
    /** The browser swaps tab id for a new one (a discard, or undoing one). */
    swap(id, props) {
      const t = { ...tabOf(id) };
      delete t.id;
      tabs.delete(id);
      const added = c.addTab({ ...t, ...props });
      if (attached.delete(id)) onDetach.emit({ tabId: id }, 'target_closed');
      onReplaced.emit(added, id);
      return added;
    },
    discard(id) {
      return c.swap(id, { status: 'unloaded', discarded: true });
    },
    tabs: {
      onUpdated,
      onCreated,
      onRemoved,
      onReplaced,
      reload: async (id) => {
        calls.push(['tabs.reload', id]);
        update(id, { status: 'loading', discarded: false });
      },
      query: async (q) => {
        calls.push(['tabs.query', q]);
        const all = [...tabs.values()];
        return q.groupId === undefined
          ? all
          : all.filter((t) => t.groupId === q.groupId);
      },
      get: async (id) => ({ ...tabOf(id) }),
      create: async (o) => {
        calls.push(['tabs.create', o]);
        if (o.url.startsWith('devtools:')) throw new Error('Cannot create');
        const id = c.addTab({
          url: '',
          pendingUrl: o.url,
          title: '',
          active: o.active,
          windowId: o.windowId ?? 1,
          status: 'loading',
        });
        return { ...tabs.get(id) };
      },
      remove: async (id) => {
        calls.push(['tabs.remove', id]);
        tabOf(id);
        c.close(id);
      },
      update: async (id, props) => {
        calls.push(['tabs.update', id, props]);
        tabOf(id).active = props.active;
        return { ...tabOf(id) };
      },
      group: async (o) => {
        calls.push(['tabs.group', o]);
        await flush();
        let g = o.groupId;
        if (g === undefined) {
          g = nextGroup++;
          groups.set(g, { id: g, windowId: o.createProperties?.windowId });
        } else if (!groups.has(g)) {
          throw new Error(`No group with id: ${g}.`);
        }
        for (const id of o.tabIds) setGroup(id, g);
        return g;
      },
      ungroup: async (ids) => {
        calls.push(['tabs.ungroup', ids]);
        for (const id of ids) setGroup(id, -1);
      },
    },
    tabGroups: {
      onRemoved: groupRemoved,
      get: async (id) => {
        if (!groups.has(id)) throw new Error(`No group with id: ${id}.`);
        return { ...groups.get(id) };
      },
      update: async (id, props) => {
        calls.push(['tabGroups.update', id, props]);
        Object.assign(groups.get(id), props);
        return { ...groups.get(id) };
      },
    },
    debugger: {
      onEvent,
      onDetach,
      attach: async (target, version) => {
        calls.push(['attach', target.tabId, version]);
        await flush();
        tabOf(target.tabId);
        if (attached.has(target.tabId)) {
          throw new Error(
            `Another debugger is already attached to the tab with id: ${target.tabId}.`,
          );
        }
        attached.add(target.tabId);
      },
      detach: async (target) => {
        calls.push(['detach', target.tabId]);
        if (!attached.delete(target.tabId)) {
          throw new Error(
            `Debugger is not attached to the tab with id: ${target.tabId}.`,
          );
        }
      },
      getTargets: async () =>
        [...tabs.values()].map((t) => ({
          tabId: t.id,
          attached: attached.has(t.id),
          type: 'page',
        })),
      sendCommand: async (target, method, params) => {
        calls.push(['send', target, method]);
        await flush();
        if (!attached.has(target.tabId)) {
          throw new Error(
            `Debugger is not attached to the tab with id: ${target.tabId}.`,
          );
        }
        for (const hook of sendHooks) {
          const r = hook(target, method, params);
          if (r !== undefined) return r;
        }
        if (method === 'Runtime.evaluate') {
          return { result: { value: params.expression } };
        }
        if (method === 'Page.enable' || method === 'Target.setAutoAttach') {
          return undefined;
        }
        throw new Error(`{"code":-32601,"message":"'${method}' wasn't found"}`);
      },
    },
    storage: { local: new FakeArea(), session: new FakeArea() },
  };
  return c;
}

/** How many calls of kind were made. */
export const count = (calls, kind) => calls.filter((x) => x[0] === kind).length;
// sentMethods lists the CDP methods sent, in order.
export const sentMethods = (calls) =>
  calls.filter((x) => x[0] === 'send').map((x) => x[2]);
