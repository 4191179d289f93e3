// One value kept in a chrome.storage area (local: survives restarts;
// session: survives the worker being suspended). Failures are logged with
// the key only, never thrown: losing a value must not break the relay.

import { errorText } from './errors.js';

export class Stored {
  /**
   * @param {chrome.storage.StorageArea | undefined} area
   * @param {string} key
   * @param {(text: string) => void} [log]
   */
  constructor(area, key, log = () => {}) {
    this.area = area;
    this.key = key;
    this.log = log;
  }

  /** The stored value, or undefined when there is none or reading failed. */
  async load() {
    if (!this.area) return undefined;
    try {
      const got = await this.area.get(this.key);
      return got?.[this.key];
    } catch (err) {
      this.log(`reading ${this.key} failed: ${errorText(err)}`);
      return undefined;
    }
  }

  async save(value) {
    if (!this.area) return;
    try {
      await this.area.set({ [this.key]: value });
    } catch (err) {
      this.log(`saving ${this.key} failed: ${errorText(err)}`);
    }
  }
}
