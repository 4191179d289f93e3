// The Terminal tab's session logic (no DOM, no xterm.js here: terminaldom.js
// binds those). The panel opens a view on the daemon when the tab is first
// shown; the daemon starts the configured command on the first keystroke.
// Output is written to the screen and acknowledged once shown, which is
// the daemon's credit to send more. When the process exits, the next key
// starts a new one.

import { errorText } from '../lib/errors.js';

/** The longest term.input, in UTF-16 code units (a paste is cut up). */
export const INPUT_PIECE = 16 * 1024;

export const ENDED_TEXT = 'Session ended — press a key to start a new one.';

/** Decodes term.output's base64 data. */
export function fromBase64(text) {
  if (typeof Uint8Array.fromBase64 === 'function') {
    return Uint8Array.fromBase64(text);
  }
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Cuts text into pieces of at most size code units, never mid-pair. */
export function pieces(text, size = INPUT_PIECE) {
  const out = [];
  for (let i = 0; i < text.length;) {
    let end = Math.min(i + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

/** text as a sentence: a capital first, a full stop last. */
export function sentence(text) {
  const t = String(text ?? '').trim();
  if (!t) return '';
  const s = t[0].toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** Why the process ended, in words. */
export function exitText(params) {
  if (typeof params?.error === 'string' && params.error) {
    return params.closed
      ? sentence(params.error)
      : sentence(`Could not start: ${params.error}`);
  }
  if (params?.signal) return `The program was ended by ${params.signal}.`;
  if (Number.isInteger(params?.code)) {
    return `The program exited with code ${params.code}.`;
  }
  return '';
}

export class TerminalSession {
  /**
   * @param {object} opts
   * @param {{request: Function, notify: Function}} opts.client the panel's
   *   port to the worker (client.js)
   * @param {{write: (data: Uint8Array, done: () => void) => void,
   *   reset: () => void, size: () => {cols: number, rows: number}}} opts.screen
   * @param {() => void} [opts.onChange] called after every state change
   */
  constructor(opts) {
    this.client = opts.client;
    this.screen = opts.screen;
    this.onChange = opts.onChange ?? (() => {});
    // idle, opening, ready (open, nothing runs yet), running, ended,
    // failed (could not open; a key retries), unavailable (this OS)
    this.state = 'idle';
    this.id = null;
    this.command = ''; // what a start runs, and where
    this.cwd = '';
    this.running = null; // {command, cwd} of the session that runs
    this.detail = '';
    this.dropped = 0;
  }

  set(state, detail = '') {
    this.state = state;
    this.detail = detail;
    this.onChange();
  }

  /** The tab is shown: open a view unless one is open or opening. */
  show() {
    if (['idle', 'failed'].includes(this.state)) return this.open();
    return Promise.resolve();
  }

  async open() {
    this.set('opening');
    try {
      const res = await this.client.request('term.open', this.screen.size());
      this.id = res.term_id;
      this.command = res.command ?? '';
      this.cwd = res.cwd ?? '';
      this.set('ready', res.settings_error ?? '');
      return true;
    } catch (err) {
      const unavailable = err?.code === 'terminal_unavailable';
      this.set(unavailable ? 'unavailable' : 'failed', errorText(err));
      return false;
    }
  }

  /** xterm.js onData: what the user typed (or pasted). */
  key(data) {
    switch (this.state) {
      case 'ready':
        this.start(data); // the first keystroke starts and is typed
        return;
      case 'running':
        this.send(data);
        return;
      case 'ended':
      case 'failed':
        this.restart(); // the key only starts a new session
        return;
      default:
    }
  }

  async restart() {
    this.screen.reset();
    if (!this.id && !(await this.open())) return;
    this.start('');
  }

  /** The settings were saved: the next start uses them. */
  settingsChanged(settings) {
    this.command = settings.command || settings.default_command || '';
    this.cwd = settings.cwd || settings.default_cwd || '';
    this.onChange();
  }

  start(data) {
    this.dropped = 0;
    this.running = { command: this.command, cwd: this.cwd };
    this.set('running');
    if (data === '') {
      this.client.notify('term.input', { term_id: this.id, data: '' });
      return;
    }
    this.send(data);
  }

  send(data) {
    for (const piece of pieces(data)) {
      this.client.notify('term.input', { term_id: this.id, data: piece });
    }
  }

  /** xterm.js onResize (the fit addon follows the panel). */
  resize(cols, rows) {
    if (this.id) {
      this.client.notify('term.resize', { term_id: this.id, cols, rows });
    }
  }

  /** The worker's term.* events. */
  event(method, params) {
    if (!this.id || params?.term_id !== this.id) return;
    if (method === 'term.output') {
      const bytes = fromBase64(params.data ?? '');
      const id = this.id;
      this.screen.write(bytes, () =>
        this.client.notify('term.ack', { term_id: id, bytes: bytes.length }),
      );
    } else if (method === 'term.exit') {
      if (params.closed) this.id = null; // the view went with the link
      this.set('ended', exitText(params));
    } else if (method === 'term.dropped') {
      this.dropped += params.bytes ?? 0;
      this.onChange();
    }
  }

  /** The user pressed End: the daemon hangs the process up. */
  async end() {
    const id = this.id;
    if (!id) return;
    this.id = null;
    this.set('ended', 'You ended the session.');
    try {
      await this.client.request('term.close', { term_id: id });
    } catch {
      // the view goes with the link anyway
    }
  }

  /** The port to the worker dropped: the view went with it. */
  portClosed() {
    if (!this.id) return;
    this.id = null;
    this.set('ended', 'The extension restarted.');
  }

  /** The status line: what runs, or what to do. */
  statusText() {
    switch (this.state) {
      case 'idle':
      case 'opening':
        return 'Opening the terminal…';
      case 'ready':
        return this.detail
          ? sentence(`The terminal settings are unusable: ${this.detail}`)
          : `Press a key to start ${this.command} in ${this.cwd}.`;
      case 'running':
        return `${this.running.command} · ${this.running.cwd}`;
      case 'ended':
        return this.detail ? `${ENDED_TEXT} ${this.detail}` : ENDED_TEXT;
      case 'failed':
        return `${sentence(`The terminal could not open: ${this.detail}`)} Press a key to try again.`;
      case 'unavailable':
        return sentence(this.detail);
    }
    return '';
  }
}
