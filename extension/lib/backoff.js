// Capped exponential backoff with jitter for reconnecting the native port:
// 0.5 s doubling, never above 30 s, each delay scaled by a random factor in
// [1 - jitter, 1 + jitter] and then clamped to the cap.

export const BACKOFF_DEFAULTS = Object.freeze({
  baseMs: 500,
  maxMs: 30_000,
  jitter: 0.2,
});

export class Backoff {
  /**
   * @param {{baseMs?: number, maxMs?: number, jitter?: number,
   *   random?: () => number}} [opts] random returns [0, 1), like Math.random.
   */
  constructor(opts = {}) {
    this.baseMs = opts.baseMs ?? BACKOFF_DEFAULTS.baseMs;
    this.maxMs = opts.maxMs ?? BACKOFF_DEFAULTS.maxMs;
    this.jitter = opts.jitter ?? BACKOFF_DEFAULTS.jitter;
    this.random = opts.random ?? Math.random;
    this.attempt = 0;
  }

  /** The delay before the next attempt, in whole milliseconds. */
  next() {
    const nominal = Math.min(this.maxMs, this.baseMs * 2 ** this.attempt);
    if (nominal < this.maxMs) this.attempt += 1;
    const factor = 1 + (this.random() * 2 - 1) * this.jitter;
    return Math.round(Math.min(this.maxMs, nominal * factor));
  }

  reset() {
    this.attempt = 0;
  }
}
