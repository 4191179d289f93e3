// The panel's "Agents on other machines" card: the remote agents
// `gasoline-host remote add` made, with what each may do, until when, and
// a Revoke button that ends its credential and its sessions at once. The
// panel never adds one: that takes a person at a terminal, where the
// credential is printed once.

import { el } from './el.js';

const REMOTES_REFRESH_MS = 10_000;

const realTimers = {
  setTimeout: (f, ms) => setTimeout(f, ms),
};

/** The card's elements. */
export function bindRemotes(doc) {
  return {
    doc,
    list: doc.getElementById('remotes'),
    empty: doc.getElementById('no-remotes'),
    error: doc.getElementById('remote-error'),
  };
}

/** One remote agent in words. */
export function remoteView(r, now) {
  const expires = Date.parse(r.expires_at);
  const left = Number.isFinite(expires) ? expires - now : 0;
  const hours = Math.floor(left / 3_600_000);
  const minutes = Math.floor((left % 3_600_000) / 60_000);
  const until =
    left <= 0 || r.expired
      ? 'expired'
      : hours > 0
        ? `${hours} h ${minutes} min left`
        : `${minutes} min left`;
  const tools = Array.isArray(r.tools) ? r.tools.join(', ') : '';
  const sites = Array.isArray(r.origins) ? r.origins.join(', ') : '';
  const connected =
    r.connected > 0
      ? `connected (${r.connected} session${r.connected > 1 ? 's' : ''})`
      : 'not connected';
  return {
    name: String(r.name ?? ''),
    text: `${r.name}: ${tools} on ${sites} — ${connected}, ${until}`,
  };
}

export class RemotesCard {
  /**
   * @param {object} opts
   * @param {{request: (method: string, params?: object) => Promise<any>}} opts.client
   * @param {ReturnType<typeof bindRemotes>} opts.els
   * @param {typeof realTimers} [opts.timers]
   * @param {() => number} [opts.now]
   */
  constructor(opts) {
    this.client = opts.client;
    this.els = opts.els;
    this.timers = opts.timers ?? realTimers;
    this.now = opts.now ?? (() => Date.now());
    this.remotes = [];
    this.busy = new Set();
  }

  start() {
    const again = () => {
      this.refresh().finally(() =>
        this.timers.setTimeout(again, REMOTES_REFRESH_MS),
      );
    };
    again();
  }

  async refresh() {
    try {
      const res = await this.client.request('remotes.list');
      this.remotes = Array.isArray(res?.remotes) ? res.remotes : [];
      this.error('');
    } catch (err) {
      if (err?.code !== 'not_connected') this.error(err?.message ?? 'failed');
    }
    this.render();
  }

  async revoke(name) {
    if (this.busy.has(name)) return;
    this.busy.add(name);
    this.render();
    try {
      const res = await this.client.request('remotes.revoke', { name });
      this.remotes = Array.isArray(res?.remotes) ? res.remotes : [];
      this.error('');
    } catch (err) {
      this.error(`Could not revoke ${name}: ${err?.message ?? 'failed'}`);
    }
    this.busy.delete(name);
    this.render();
  }

  error(text) {
    this.els.error.textContent = text;
    this.els.error.hidden = !text;
  }

  render() {
    const { doc, list, empty } = this.els;
    const now = this.now();
    list.replaceChildren(
      ...this.remotes.map((r) => {
        const vm = remoteView(r, now);
        const li = el(doc, 'li', 'grant');
        li.dataset.remote = vm.name;
        const button = el(
          doc,
          'button',
          'revoke',
          this.busy.has(vm.name) ? 'Revoking…' : 'Revoke',
        );
        button.type = 'button';
        button.disabled = this.busy.has(vm.name);
        button.setAttribute('aria-label', `Revoke the remote agent ${vm.name}`);
        button.addEventListener('click', () => this.revoke(vm.name));
        li.append(el(doc, 'span', 'grant-text', vm.text), button);
        return li;
      }),
    );
    empty.hidden = this.remotes.length > 0;
  }
}
