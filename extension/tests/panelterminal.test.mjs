import assert from 'node:assert/strict';
import test from 'node:test';

import {
  ENDED_TEXT,
  TerminalSession,
  exitText,
  fromBase64,
  pieces,
} from '../panel/terminal.js';
import { flush } from './fakes.mjs';

/** A session over a fake client and screen. */
function setup({ open } = {}) {
  const requests = [];
  const events = [];
  const written = [];
  let resets = 0;
  const client = {
    request: async (method, params) => {
      requests.push([method, params]);
      if (method === 'term.open') {
        if (open) return open();
        return { term_id: 'term_1', command: 'bash -l', cwd: '/home/u' };
      }
      return {};
    },
    notify: (method, params) => {
      events.push([method, params]);
      return true;
    },
  };
  const pendingWrites = [];
  const screen = {
    write: (bytes, done) => {
      written.push(new TextDecoder().decode(bytes));
      pendingWrites.push(done);
    },
    reset: () => resets++,
    size: () => ({ cols: 90, rows: 25 }),
  };
  const s = new TerminalSession({ client, screen });
  return {
    s,
    requests,
    events,
    written,
    pendingWrites,
    resets: () => resets,
  };
}

const b64 = (text) => Buffer.from(text).toString('base64');

test('showing the tab opens a view at the screen’s size; nothing starts yet', async () => {
  const { s, requests, events } = setup();
  await s.show();
  assert.deepEqual(requests, [['term.open', { cols: 90, rows: 25 }]]);
  assert.equal(s.state, 'ready');
  assert.equal(s.statusText(), 'Press a key to start bash -l in /home/u.');
  assert.deepEqual(events, []);
  await s.show();
  assert.equal(requests.length, 1, 'one view per tab');
});

test('the first keystroke starts the program and is typed', async () => {
  const { s, events } = setup();
  await s.show();
  s.key('l');
  s.key('s\r');
  assert.equal(s.state, 'running');
  assert.deepEqual(events, [
    ['term.input', { term_id: 'term_1', data: 'l' }],
    ['term.input', { term_id: 'term_1', data: 's\r' }],
  ]);
  assert.equal(s.statusText(), 'bash -l · /home/u');
});

test('output is written, then acknowledged with its byte count', async () => {
  const { s, events, written, pendingWrites } = setup();
  await s.show();
  s.key('x');
  s.event('term.output', { term_id: 'term_1', data: b64('héllo') });
  s.event('term.output', { term_id: 'term_other', data: b64('nope') });
  assert.deepEqual(written, ['héllo']);
  assert.equal(events.length, 1, 'no ack before the screen took it');
  pendingWrites[0]();
  assert.deepEqual(events.at(-1), [
    'term.ack',
    { term_id: 'term_1', bytes: 6 },
  ]);
});

test('when the program exits, a key starts a new one and is not typed', async () => {
  const { s, events, resets } = setup();
  await s.show();
  s.key('exit\r');
  s.event('term.exit', { term_id: 'term_1', code: 0 });
  assert.equal(s.state, 'ended');
  assert.equal(s.statusText(), `${ENDED_TEXT} The program exited with code 0.`);
  s.key('q');
  await flush();
  assert.equal(s.state, 'running');
  assert.equal(resets(), 1, 'a fresh screen');
  assert.deepEqual(events.at(-1), [
    'term.input',
    { term_id: 'term_1', data: '' },
  ]);
});

test('a view the link took with it is opened again on the next key', async () => {
  const { s, requests, events } = setup();
  await s.show();
  s.key('x');
  s.event('term.exit', {
    term_id: 'term_1',
    error: 'the link to the Gasoline daemon was lost',
    closed: true,
  });
  assert.equal(
    s.statusText(),
    `${ENDED_TEXT} The link to the Gasoline daemon was lost.`,
  );
  s.key('x');
  await flush();
  assert.equal(requests.filter(([m]) => m === 'term.open').length, 2);
  assert.deepEqual(events.at(-1), [
    'term.input',
    { term_id: 'term_1', data: '' },
  ]);
});

test('End closes the view on the daemon', async () => {
  const { s, requests } = setup();
  await s.show();
  s.key('x');
  await s.end();
  assert.deepEqual(requests.at(-1), ['term.close', { term_id: 'term_1' }]);
  assert.equal(s.state, 'ended');
  assert.equal(s.id, null);
});

test('on Windows the tab says the terminal is not available', async () => {
  const { s } = setup({
    open: async () => {
      const err = new Error('the terminal is not available on Windows yet');
      err.code = 'terminal_unavailable';
      throw err;
    },
  });
  await s.show();
  assert.equal(s.state, 'unavailable');
  assert.equal(s.statusText(), 'The terminal is not available on Windows yet.');
  s.key('x');
  assert.equal(s.state, 'unavailable', 'keys do nothing');
});

test('a paste is cut into pieces, never inside a surrogate pair', () => {
  assert.deepEqual(pieces('abcdef', 4), ['abcd', 'ef']);
  assert.deepEqual(pieces('abc😀d', 4), ['abc', '😀d']);
  assert.deepEqual(pieces('', 4), []);
});

test('exit reasons in words; base64 decodes to bytes', () => {
  assert.equal(
    exitText({ signal: 'SIGHUP', code: -1 }),
    'The program was ended by SIGHUP.',
  );
  assert.equal(
    exitText({ error: 'the directory /x does not exist' }),
    'Could not start: the directory /x does not exist.',
  );
  assert.deepEqual([...fromBase64(b64('\u0001\u00ff'))], [1, 0xc3, 0xbf]);
});
