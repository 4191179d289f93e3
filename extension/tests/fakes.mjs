// Test doubles: a chrome.runtime.Port, chrome events and manual timers.

export class FakeEvent {
  constructor() {
    this.listeners = new Set();
  }
  addListener(fn) {
    this.listeners.add(fn);
  }
  removeListener(fn) {
    this.listeners.delete(fn);
  }
  emit(...args) {
    for (const fn of [...this.listeners]) fn(...args);
  }
}

/** A native port; messages round-trip through JSON like Chrome's. */
export class FakePort {
  constructor() {
    this.onMessage = new FakeEvent();
    this.onDisconnect = new FakeEvent();
    this.sent = [];
    this.disconnected = false;
  }
  postMessage(msg) {
    if (this.disconnected) {
      throw new Error('Attempting to use a disconnected port object');
    }
    this.sent.push(JSON.parse(JSON.stringify(msg)));
  }
  disconnect() {
    this.disconnected = true;
  }
  /** The host sends msg to the extension. */
  deliver(msg) {
    this.onMessage.emit(JSON.parse(JSON.stringify(msg)), this);
  }
  /** The host side goes away. */
  drop() {
    this.disconnected = true;
    this.onDisconnect.emit(this);
  }
}

/** Timers driven by advance(); no real time passes. */
export class FakeTimers {
  constructor() {
    this.now = 0;
    this.queue = [];
    this.seq = 0;
    this.setTimeout = (fn, ms) => {
      const handle = ++this.seq;
      this.queue.push({ handle, at: this.now + ms, ms, fn });
      return handle;
    };
    this.clearTimeout = (handle) => {
      this.queue = this.queue.filter((t) => t.handle !== handle);
    };
  }
  /** Delays of the timers still waiting, in the order they were set. */
  get waiting() {
    return this.queue.map((t) => t.ms);
  }
  advance(ms) {
    const end = this.now + ms;
    for (;;) {
      this.queue.sort((a, b) => a.at - b.at);
      const t = this.queue[0];
      if (!t || t.at > end) break;
      this.queue.shift();
      this.now = t.at;
      t.fn();
    }
    this.now = end;
  }
}

/** Lets pending promise callbacks run (no time passes). */
export function flush() {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Collects log lines. */
export function logger() {
  const lines = [];
  const log = (text) => lines.push(text);
  log.lines = lines;
  return log;
}
