// "This tab": share the tab the user is looking at with a connected agent
// session, or stop sharing it (PROTOCOL.md panel.tab, panel.share,
// panel.unshare). Sharing moves the tab into the session's tab group, as
// dragging it there does; the group is the consent boundary. Also where
// the user names this browser profile, so agents with several browsers can
// tell them apart (saved in storage.local; the worker tells the daemon).

import { realTimers } from '../lib/timers.js';
import { el } from './el.js';

export const SHARE_REFRESH_MS = 3000;

/**
 * What the card says about a tab (pure, for tests).
 * @param {object|null} state panel.tab's answer, or null without a page
 * @returns {{text: string, mode: 'none'|'shared'|'opened'|'offer'|'alone'}}
 */
export function describeTab(state) {
  if (!state) {
    return { mode: 'none', text: 'Open a web page to share it with an agent.' };
  }
  if (state.shared_with) {
    return {
      mode: 'shared',
      text:
        `Shared with ${state.shared_with.client}. The agent reads this tab ` +
        'from the moment you shared it and asks you before it changes ' +
        'anything. Stop sharing, or drag the tab out of its group, to take ' +
        'it back.',
    };
  }
  if (state.opened_by) {
    return {
      mode: 'opened',
      text: `${state.opened_by.client} opened this tab; it is in the agent’s group.`,
    };
  }
  if (!state.sessions?.length) {
    return {
      mode: 'alone',
      text: 'No agent is connected. Once one is, you can share this tab with it.',
    };
  }
  return {
    mode: 'offer',
    text:
      'Agents see only the tabs in their tab group. Share this tab with an ' +
      'agent, or drag it into the agent’s group.',
  };
}

export class ShareCard {
  /**
   * @param {object} opts
   * @param {{request: (method: string, params: object) => Promise<any>}} opts.client
   * @param {() => Promise<{id: number}|null>} opts.activeTab
   * @param {object} opts.els from bindShare
   * @param {Document} opts.doc
   * @param {typeof realTimers} [opts.timers]
   */
  constructor(opts) {
    this.client = opts.client;
    this.activeTab = opts.activeTab;
    this.els = opts.els;
    this.doc = opts.doc;
    this.timers = opts.timers ?? realTimers;
    this.state = null;
    this.busy = false;
  }

  start() {
    this.els.share.addEventListener('click', () => this.share());
    this.els.unshare.addEventListener('click', () => this.unshare());
    this.refresh();
    const again = () => {
      this.refresh().finally(() =>
        this.timers.setTimeout(again, SHARE_REFRESH_MS),
      );
    };
    this.timers.setTimeout(again, SHARE_REFRESH_MS);
  }

  /** Reads the active tab's state from the daemon and renders it. */
  async refresh() {
    if (this.busy) return;
    try {
      const tab = await this.activeTab();
      this.state = tab
        ? await this.client.request('panel.tab', { tab_id: tab.id })
        : null;
      this.error('');
    } catch (err) {
      this.state = null;
      if (err?.code !== 'not_connected') this.error(err?.message ?? 'failed');
    }
    this.render();
  }

  async share() {
    const session = this.els.select.value;
    if (!this.state || !session) return;
    await this.run('panel.share', { tab_id: this.state.tab_id, session });
  }

  async unshare() {
    if (!this.state) return;
    await this.run('panel.unshare', { tab_id: this.state.tab_id });
  }

  async run(method, params) {
    this.busy = true;
    this.els.share.disabled = this.els.unshare.disabled = true;
    try {
      this.state = await this.client.request(method, params);
      this.error('');
    } catch (err) {
      this.error(err?.message ?? `${method} failed`);
    } finally {
      this.busy = false;
      this.els.share.disabled = this.els.unshare.disabled = false;
    }
    this.render();
  }

  error(text) {
    this.els.error.textContent = text;
    this.els.error.hidden = !text;
  }

  render() {
    const { mode, text } = describeTab(this.state);
    const { els } = this;
    els.card.dataset.mode = mode;
    els.state.textContent = text;
    els.offer.hidden = mode !== 'offer';
    els.unshare.hidden = mode !== 'shared';
    if (mode !== 'offer') return;
    const keep = els.select.value;
    els.select.replaceChildren(
      ...this.state.sessions.map((s) => {
        const o = el(this.doc, 'option', '', s.client);
        o.value = s.session;
        return o;
      }),
    );
    if (this.state.sessions.some((s) => s.session === keep)) {
      els.select.value = keep;
    }
  }
}

/** The card's elements. */
export function bindShare(doc) {
  const $ = (id) => doc.getElementById(id);
  return {
    card: $('share-card'),
    state: $('share-state'),
    offer: $('share-offer'),
    select: $('share-with'),
    share: $('share-button'),
    unshare: $('unshare-button'),
    error: $('share-error'),
    nameForm: $('browser-name-form'),
    name: $('browser-name'),
    nameSaved: $('browser-name-saved'),
  };
}

/**
 * The browser-name field: shows the saved name, saves a new one.
 * @param {object} els from bindShare
 * @param {{get: () => Promise<string>, set: (v: string) => Promise<void>}} store
 */
export function wireBrowserName(els, store) {
  store.get().then(
    (name) => {
      els.name.value = name ?? '';
    },
    () => {},
  );
  els.nameForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await store.set(els.name.value);
      els.nameSaved.textContent = 'Saved.';
    } catch {
      els.nameSaved.textContent = 'Could not save the name.';
    }
  });
}
