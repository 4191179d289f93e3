// The Terminal tab in the page: the tab strip beside the conversation,
// xterm.js (vendored, DOM renderer) with its fit addon following the
// panel's size, the status line, End, and the settings form. xterm.js is
// loaded when the tab is first shown.

import { errorText } from '../lib/errors.js';
import { TerminalSession, sentence } from './terminal.js';

const XTERM = '../vendor/xterm/xterm.mjs';
const FIT = '../vendor/xterm/addon-fit.mjs';

/** The tab's elements, by id. */
export function bindTerminal(doc) {
  const get = (id) => doc.getElementById(id);
  return {
    doc,
    tabChat: get('tab-chat'),
    tabTerminal: get('tab-terminal'),
    card: get('tab-chat')?.closest('section'),
    terminalPane: get('terminal-pane'),
    screen: get('terminal'),
    status: get('term-status'),
    end: get('term-end'),
    notice: get('term-notice'),
    form: get('term-settings'),
    command: get('term-command'),
    cwd: get('term-cwd'),
    saved: get('term-saved'),
  };
}

/** Renders the session's state into the tab. */
export function renderTerminal(els, session) {
  els.status.textContent = session.statusText();
  els.status.dataset.state = session.state;
  els.end.disabled = !session.id || session.state !== 'running';
  const dropped = session.dropped;
  els.notice.hidden = dropped === 0;
  els.notice.textContent = dropped
    ? `${dropped} bytes you typed or pasted were dropped: the program is not reading its input.`
    : '';
}

/**
 * Wires the Terminal tab.
 * @param {ReturnType<typeof bindTerminal>} els
 * @param {{request: Function, notify: Function}} client
 * @returns {TerminalSession} the session (the controller gives it the
 *   worker's term.* events)
 */
export function wireTerminal(els, client) {
  let xterm = null;
  let fit = null;
  const screen = {
    write: (bytes, done) => xterm.write(bytes, done),
    reset: () => xterm.reset(),
    size: () => ({ cols: xterm.cols, rows: xterm.rows }),
  };
  const session = new TerminalSession({
    client,
    screen,
    onChange: () => renderTerminal(els, session),
  });
  const refit = () => {
    if (fit && !els.terminalPane.hidden) fit.fit();
  };
  const load = async () => {
    if (xterm) return true;
    try {
      const [{ Terminal }, { FitAddon }] = await Promise.all([
        import(XTERM),
        import(FIT),
      ]);
      xterm = new Terminal({
        cursorBlink: true,
        fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace',
        fontSize: 13,
        scrollback: 5000,
        theme: { background: '#000000', foreground: '#e6e9ef' },
      });
      fit = new FitAddon();
      xterm.loadAddon(fit);
      xterm.open(els.screen);
      xterm.onData((data) => session.key(data));
      xterm.onResize(({ cols, rows }) => session.resize(cols, rows));
      new ResizeObserver(refit).observe(els.screen);
      refit();
      return true;
    } catch (err) {
      session.set(
        'unavailable',
        `the terminal library is missing (${errorText(err)}); run make vendor and reload the extension`,
      );
      return false;
    }
  };
  const select = async (terminal) => {
    els.tabChat.setAttribute('aria-selected', String(!terminal));
    els.tabTerminal.setAttribute('aria-selected', String(terminal));
    els.card.dataset.pane = terminal ? 'terminal' : 'chat';
    els.terminalPane.hidden = !terminal;
    if (!terminal || !(await load())) return;
    refit();
    xterm.focus();
    await Promise.all([session.show(), loadSettings(els, client)]);
  };
  els.tabChat.addEventListener('click', () => select(false));
  els.tabTerminal.addEventListener('click', () => select(true));
  els.end.addEventListener('click', () => session.end());
  els.form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const saved = await saveSettings(els, client);
    if (saved) session.settingsChanged(saved);
  });
  renderTerminal(els, session);
  return session;
}

let settingsLoaded = false;

async function loadSettings(els, client) {
  if (settingsLoaded) return;
  try {
    fillSettings(els, await client.request('term.settings.get'));
    settingsLoaded = true;
  } catch (err) {
    els.saved.textContent = sentence(
      `Could not read the settings: ${errorText(err)}`,
    );
  }
}

function fillSettings(els, s) {
  els.command.value = s.command ?? '';
  els.command.placeholder = s.default_command ?? '';
  els.cwd.value = s.cwd ?? '';
  els.cwd.placeholder = s.default_cwd ?? '';
  els.saved.textContent = s.error ? sentence(s.error) : '';
}

/** Saves the form; returns the settings saved, or null. */
async function saveSettings(els, client) {
  els.saved.textContent = 'Saving…';
  try {
    const s = await client.request('term.settings.set', {
      command: els.command.value,
      cwd: els.cwd.value,
    });
    fillSettings(els, s);
    els.saved.textContent = 'Saved. The next session starts with these.';
    return s;
  } catch (err) {
    els.saved.textContent = sentence(errorText(err));
    return null;
  }
}
