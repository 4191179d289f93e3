// The methods the daemon calls on the extension (PROTOCOL.md "Served by the
// extension") and the shapes of the events the extension sends back.

import { Attachments } from './attachments.js';
import { mapChromeError, unknownMethod } from './errors.js';
import * as need from './params.js';

/** The protocol's view of a chrome.tabs.Tab. */
export function tabInfo(t) {
  return {
    id: t.id,
    url: t.url || t.pendingUrl || '',
    title: t.title ?? '',
    active: Boolean(t.active),
    window_id: t.windowId,
  };
}

/** cdp.event params for a chrome.debugger.onEvent call, or null. */
export function cdpEvent(source, method, params) {
  if (source?.tabId === undefined) return null;
  const p = { tab_id: source.tabId, method, params: params ?? {} };
  if (source.sessionId) p.session_id = source.sessionId;
  return p;
}

/** cdp.detached params for a chrome.debugger.onDetach call, or null. */
export function cdpDetached(source, reason) {
  if (source?.tabId === undefined) return null;
  return { tab_id: source.tabId, reason };
}

export class Relay {
  /** @param {{tabs: typeof chrome.tabs, debugger: typeof chrome.debugger}} api */
  constructor(api) {
    this.api = api;
    this.attachments = new Attachments(api.debugger);
    this.methods = {
      'cdp.detach': (p) => this.cdpDetach(p),
      'cdp.send': (p) => this.cdpSend(p),
      ping: (p) => ({ pong: true, echo: p.echo ?? null }),
      'tabs.close': (p) => this.tabsClose(p),
      'tabs.create': (p) => this.tabsCreate(p),
      'tabs.query': (p) => this.tabsQuery(p),
    };
  }

  /** Serves one request; throws a ProtocolError on failure. */
  async handle(method, params) {
    const fn = Object.hasOwn(this.methods, method)
      ? this.methods[method]
      : null;
    if (!fn) throw unknownMethod(method);
    return fn(params ?? {});
  }

  /** Forgets a tab that closed or was detached. */
  forget(tabId) {
    this.attachments.forget(tabId);
  }

  async tabsQuery(p) {
    const url = need.urlPatterns(p);
    const query = url === undefined ? {} : { url };
    try {
      const tabs = await this.api.tabs.query(query);
      return { tabs: tabs.map(tabInfo) };
    } catch (err) {
      throw mapChromeError(err);
    }
  }

  async tabsCreate(p) {
    const url = need.string(p, 'url');
    const active = need.boolean(p, 'active', false);
    try {
      return { tab: tabInfo(await this.api.tabs.create({ url, active })) };
    } catch (err) {
      throw mapChromeError(err);
    }
  }

  async tabsClose(p) {
    const tabId = need.tabId(p);
    try {
      await this.api.tabs.remove(tabId);
    } catch (err) {
      throw mapChromeError(err, { tabId });
    }
    this.attachments.forget(tabId);
    return {};
  }

  async cdpSend(p) {
    const tabId = need.tabId(p);
    const method = need.string(p, 'method');
    const params = need.object(p, 'params');
    const sessionId = need.string(p, 'session_id', { optional: true });
    const target = sessionId ? { tabId, sessionId } : { tabId };
    try {
      await this.attachments.ensure(tabId);
      return (
        (await this.api.debugger.sendCommand(target, method, params)) ?? {}
      );
    } catch (err) {
      throw await this.explain(err, tabId);
    }
  }

  async cdpDetach(p) {
    const tabId = need.tabId(p);
    try {
      await this.attachments.detach(tabId);
    } catch (err) {
      throw await this.explain(err, tabId);
    }
    return {};
  }

  /** Maps a chrome.debugger failure, telling a closed tab from a detach. */
  async explain(err, tabId) {
    const e = mapChromeError(err, { tabId });
    if (e.code !== 'detached' && e.code !== 'tab_closed') return e;
    this.attachments.forget(tabId);
    if (e.code === 'detached' && !(await this.tabExists(tabId))) {
      return mapChromeError('No tab with id', { tabId });
    }
    return e;
  }

  async tabExists(tabId) {
    try {
      await this.api.tabs.get(tabId);
      return true;
    } catch {
      return false;
    }
  }
}
