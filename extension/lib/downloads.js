// Downloads of the tabs Gasoline's debugger is attached to never reach the
// user's Downloads folder. The daemon saves a download it recognizes
// before the browser sees it (it holds the response at the Fetch response
// stage and aborts it: docs/DEVTOOLS.md). This guard is the backstop for
// the rest — a file the page builds itself (blob: and data: URLs), or a
// response the daemon took for a page: Chrome announces such a download
// to the debugger (Page.downloadWillBegin, from an attached tab) and asks
// the downloads API for its file name (onDeterminingFilename) before it
// writes anything; the guard cancels it there, so no file is created.
// Chrome offers an extension no way to save a download elsewhere: its
// file name may only be chosen inside the Downloads folder, and
// Page/Browser.setDownloadBehavior are refused to chrome.debugger.
//
// A download from any other tab is the user's: its name is suggested
// unchanged, at once when Gasoline is attached to no tab, else after at
// most WAIT_MS (the debugger's announcement may arrive after the
// downloads API's question).

import { realTimers } from './timers.js';

export const WAIT_MS = 1000;
/** How long an announcement is remembered. */
export const KEEP_MS = 30_000;

export class DownloadGuard {
  /**
   * @param {object} opts
   * @param {typeof chrome.downloads} opts.downloads
   * @param {() => number[]} opts.attached the tabs the debugger is attached
   *   to (Attachments.attached)
   * @param {import('./timers.js').realTimers} [opts.timers]
   * @param {() => number} [opts.now]
   * @param {(text: string) => void} [opts.log]
   */
  constructor(opts) {
    this.downloads = opts.downloads;
    this.attached = opts.attached;
    this.timers = opts.timers ?? realTimers;
    this.now = opts.now ?? (() => Date.now());
    this.log = opts.log ?? (() => {});
    this.announced = new Map(); // url -> {tabId, at}
    this.waiting = new Map(); // url -> [resolve]
  }

  /** chrome.debugger.onEvent */
  event(source, method, params) {
    if (method !== 'Page.downloadWillBegin' || !params?.url) return;
    if (source?.tabId === undefined || source.sessionId) return;
    this.prune();
    this.announced.set(params.url, { tabId: source.tabId, at: this.now() });
    const waiters = this.waiting.get(params.url);
    this.waiting.delete(params.url);
    for (const w of waiters ?? []) w(true);
  }

  /**
   * chrome.downloads.onDeterminingFilename: cancels an announced
   * download; suggests the others unchanged.
   * @returns {boolean|undefined} true when suggest is called later
   */
  determining(item, suggest) {
    if (this.take(item)) {
      this.cancel(item);
      return undefined;
    }
    if (this.attached().length === 0) {
      suggest();
      return undefined;
    }
    this.wait(item).then((ours) => {
      if (ours) this.cancel(item);
      else suggest();
    });
    return true;
  }

  /** Whether item was announced by an attached tab (and forgets it). */
  take(item) {
    for (const url of [item.url, item.finalUrl]) {
      if (url && this.announced.has(url)) {
        this.announced.delete(url);
        return true;
      }
    }
    return false;
  }

  /** Resolves true if item is announced within WAIT_MS. */
  wait(item) {
    return new Promise((resolve) => {
      const url = item.url;
      let done = false;
      const finish = (ours) => {
        if (done) return;
        done = true;
        this.timers.clearTimeout(timer);
        if (ours) this.announced.delete(url);
        resolve(ours);
      };
      const timer = this.timers.setTimeout(() => {
        const list = this.waiting.get(url) ?? [];
        const rest = list.filter((w) => w !== finish);
        if (rest.length) this.waiting.set(url, rest);
        else this.waiting.delete(url);
        finish(false);
      }, WAIT_MS);
      this.waiting.set(url, [...(this.waiting.get(url) ?? []), finish]);
    });
  }

  async cancel(item) {
    try {
      await this.downloads.cancel(item.id);
      await this.downloads.erase({ id: item.id });
      this.log(
        `download ${item.id} of an attached tab cancelled before any file was written`,
      );
    } catch (err) {
      this.log(`cancelling download ${item.id} failed: ${err?.message}`);
    }
  }

  prune() {
    const old = this.now() - KEEP_MS;
    for (const [url, a] of this.announced) {
      if (a.at < old) this.announced.delete(url);
    }
  }
}

/**
 * Registers the guard's listeners; called once at the top level of the
 * service worker.
 * @param {typeof chrome} api
 * @param {DownloadGuard} guard
 */
export function wireDownloads(api, guard) {
  if (!api.downloads?.onDeterminingFilename) return;
  api.debugger.onEvent.addListener((source, method, params) =>
    guard.event(source, method, params),
  );
  api.downloads.onDeterminingFilename.addListener((item, suggest) =>
    guard.determining(item, suggest),
  );
}
