import assert from 'node:assert/strict';
import test from 'node:test';

import { PanelBridge } from '../lib/panelbridge.js';
import { flush, logger } from './fakes.mjs';
import { FakePanelPort } from './panelfakes.mjs';

const SELF = 'efmkjhahfhlpnniaiinagccopblhbdkc';
const PANEL_URL = `chrome-extension://${SELF}/sidepanel.html`;

/** A worker's panel bridge whose daemon opens views term_1, term_2, … */
function setup() {
  const calls = [];
  const up = [];
  let linkUp = true;
  let n = 0;
  let hold = null; // a promise term.open waits on, when set
  const bridge = new PanelBridge({
    request: async (method, params) => {
      calls.push([method, params]);
      if (method === 'term.open') {
        await hold;
        return { term_id: `term_${++n}`, command: 'bash -l', cwd: '/home/u' };
      }
      return {};
    },
    notify: (method, params) => {
      if (linkUp) up.push([method, params]);
      return linkUp;
    },
    selfId: SELF,
    log: logger(),
  });
  const open = () => {
    const port = new FakePanelPort('panel', { id: SELF, url: PANEL_URL });
    bridge.connect(port);
    return port;
  };
  const openView = async (port, id = 1) => {
    port.deliver({ id, method: 'term.open', params: { cols: 80, rows: 24 } });
    await flush();
    return port.sent.find((m) => m.id === id).result.term_id;
  };
  return {
    bridge,
    calls,
    up,
    open,
    openView,
    linkDown: () => (linkUp = false),
    holdOpen: () => {
      let release;
      hold = new Promise((r) => (release = r));
      return release;
    },
  };
}

const events = (port, method) =>
  port.sent.filter((m) => m.method === method).map((m) => m.params);

test('a panel’s keystrokes reach the daemon; another panel’s do not', async () => {
  const { open, openView, up } = setup();
  const a = open();
  const b = open();
  const id = await openView(a);
  a.deliver({ method: 'term.input', params: { term_id: id, data: 'ls\r' } });
  a.deliver({
    method: 'term.resize',
    params: { term_id: id, cols: 100, rows: 30 },
  });
  a.deliver({ method: 'term.ack', params: { term_id: id, bytes: 12 } });
  b.deliver({
    method: 'term.input',
    params: { term_id: id, data: 'rm -rf ~\r' },
  });
  a.deliver({
    method: 'term.input',
    params: { term_id: 'term_other', data: 'x' },
  });
  a.deliver({ method: 'term.exec', params: { term_id: id } });
  assert.deepEqual(up, [
    ['term.input', { term_id: id, data: 'ls\r' }],
    ['term.resize', { term_id: id, cols: 100, rows: 30 }],
    ['term.ack', { term_id: id, bytes: 12 }],
  ]);
});

test('output goes to the panel that opened the view, and to no other', async () => {
  const { bridge, open, openView } = setup();
  const a = open();
  const b = open();
  const id = await openView(a);
  assert.equal(
    bridge.event('term.output', { term_id: id, data: 'aGk=' }),
    true,
  );
  assert.equal(bridge.event('term.exit', { term_id: id, code: 0 }), true);
  assert.equal(
    bridge.event('term.output', { term_id: 'term_gone', data: 'eA==' }),
    true,
  );
  assert.deepEqual(events(a, 'term.output'), [{ term_id: id, data: 'aGk=' }]);
  assert.deepEqual(events(a, 'term.exit'), [{ term_id: id, code: 0 }]);
  assert.deepEqual(events(b, 'term.output'), []);
});

test('a panel that goes away closes its views on the daemon', async () => {
  const { open, openView, calls } = setup();
  const a = open();
  const id = await openView(a);
  a.drop();
  await flush();
  assert.deepEqual(calls.at(-1), ['term.close', { term_id: id }]);
});

test('a view opened as its panel left is closed at once', async () => {
  const { open, calls, holdOpen } = setup();
  const release = holdOpen();
  const a = open();
  a.deliver({ id: 1, method: 'term.open', params: {} });
  await flush();
  a.drop();
  release();
  await flush();
  assert.deepEqual(calls.at(-1), ['term.close', { term_id: 'term_1' }]);
});

test('a link change ends every view, and its panel is told', async () => {
  const { bridge, open, openView, up } = setup();
  const a = open();
  const id = await openView(a);
  bridge.linkState('closed', { reason: 'host exited', retry_in_ms: 500 });
  const [exit] = events(a, 'term.exit');
  assert.equal(exit.term_id, id);
  assert.equal(exit.closed, true);
  assert.match(exit.error, /link/);
  a.deliver({ method: 'term.input', params: { term_id: id, data: 'x' } });
  assert.deepEqual(up, [], 'nothing goes up for a view that is gone');
});

test('a keystroke the link cannot take ends the view', async () => {
  const { open, openView, linkDown } = setup();
  const a = open();
  const id = await openView(a);
  linkDown();
  a.deliver({ method: 'term.input', params: { term_id: id, data: 'x' } });
  assert.equal(events(a, 'term.exit')[0]?.term_id, id);
});
