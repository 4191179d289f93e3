import assert from 'node:assert/strict';
import test from 'node:test';

import { Backoff } from '../lib/backoff.js';
import { Connector } from '../lib/connector.js';
import { PanelBridge, viaConnector, wirePanel } from '../lib/panelbridge.js';
import { FakeEvent, FakePort, FakeTimers, flush, logger } from './fakes.mjs';
import { FakePanelPort } from './panelfakes.mjs';

const SELF = 'efmkjhahfhlpnniaiinagccopblhbdkc';
const PANEL_URL = `chrome-extension://${SELF}/sidepanel.html`;

function setup() {
  const calls = [];
  let answer = async () => ({ ok: true });
  const log = logger();
  let now = 1000;
  const bridge = new PanelBridge({
    request: (method, params) => {
      calls.push([method, params]);
      return answer(method, params);
    },
    selfId: SELF,
    log,
    now: () => now,
  });
  const open = () => {
    const port = new FakePanelPort('panel', { id: SELF, url: PANEL_URL });
    assert.equal(bridge.connect(port), true);
    return port;
  };
  return {
    bridge,
    calls,
    log,
    open,
    answer: (fn) => (answer = fn),
    at: (t) => (now = t),
  };
}

test('a panel hears the link state as soon as it connects', () => {
  const { open } = setup();
  const port = open();
  assert.deepEqual(port.sent, [
    { method: 'link.state', params: { state: 'connecting', down_since: 1000 } },
  ]);
});

test('only ports named panel from this extension’s pages are taken', () => {
  const { bridge } = setup();
  const other = new FakePanelPort('relay', { id: SELF, url: PANEL_URL });
  assert.equal(bridge.connect(other), false);
  for (const sender of [
    { id: 'someoneelse', url: PANEL_URL },
    { id: SELF, url: 'https://evil.example/' },
    { id: SELF },
    undefined,
  ]) {
    const port = new FakePanelPort('panel', sender);
    assert.equal(bridge.connect(port), true);
    assert.equal(port.disconnected, true, JSON.stringify(sender));
    assert.deepEqual(port.sent, []);
  }
  assert.equal(bridge.ports.size, 0);
});

test('panel requests go to the daemon and the reply comes back', async () => {
  const { open, calls } = setup();
  const port = open();
  port.deliver({
    id: 1,
    method: 'approvals.decide',
    params: { request_id: 'req_1', decision: 'once' },
  });
  await flush();
  assert.deepEqual(calls, [
    ['approvals.decide', { request_id: 'req_1', decision: 'once' }],
  ]);
  assert.deepEqual(port.sent.at(-1), { id: 1, result: { ok: true } });
});

test('the chat methods go to the daemon; panel.event pushes reach every panel', async () => {
  const { bridge, open, calls } = setup();
  const a = open();
  const b = open();
  const requests = [
    ['panel.chat', { message: 'hi', tab_id: 7, provider: 'local' }],
    ['panel.history', { conversation_id: 'c1', after_seq: 3 }],
    ['panel.providers', {}],
    ['panel.export', { conversation_id: 'c1' }],
  ];
  requests.forEach(([method, params], i) =>
    a.deliver({ id: i + 1, method, params }),
  );
  await flush();
  assert.deepEqual(calls, requests);
  assert.deepEqual(
    a.sent.filter((m) => m.id).map((m) => m.id),
    [1, 2, 3, 4],
  );
  const ev = { conversation_id: 'c1', turn_id: 't1', seq: 1, kind: 'user' };
  assert.equal(bridge.event('panel.event', ev), true);
  for (const port of [a, b]) {
    assert.deepEqual(port.sent.at(-1), { method: 'panel.event', params: ev });
  }
});

test('daemon errors reach the panel with their code', async () => {
  const { open, answer } = setup();
  answer(async () => {
    const e = new Error('approval: unknown: req_9');
    e.code = 'approval_rejected';
    throw e;
  });
  const port = open();
  port.deliver({ id: 4, method: 'approvals.list' });
  await flush();
  assert.deepEqual(port.sent.at(-1), {
    id: 4,
    error: {
      code: 'approval_rejected',
      message: 'approval: unknown: req_9',
      retryable: false,
    },
  });
});

test('methods outside the panel’s are refused, not forwarded', async () => {
  const { open, calls } = setup();
  const port = open();
  const refused = ['hello', 'cdp.send', 'tabs.create', 'panel.anything'];
  for (const method of refused) {
    port.deliver({ id: 2, method, params: {} });
  }
  port.deliver({ method: 'approvals.list' }); // no id: dropped
  await flush();
  assert.deepEqual(calls, []);
  const errors = port.sent.filter((m) => m.error).map((m) => m.error.code);
  assert.deepEqual(
    errors,
    refused.map(() => 'unknown_method'),
  );
});

test('link states and approval events reach every panel', () => {
  const { bridge, open, at } = setup();
  const a = open();
  const b = open();
  bridge.linkState('ready', { daemon: { version: '0.1.0', daemon_pid: 42 } });
  at(5000);
  bridge.linkState('closed', {
    reason: 'Native host has exited.',
    retry_in_ms: 500,
  });
  const ev = { type: 'requested', request: { request_id: 'req_1' } };
  assert.equal(bridge.event('approval.event', ev), true);
  assert.equal(bridge.event('something.else', {}), false);
  for (const port of [a, b]) {
    assert.deepEqual(port.sent.slice(-3), [
      {
        method: 'link.state',
        params: {
          state: 'ready',
          epoch: 1,
          daemon: { version: '0.1.0', pid: 42 },
        },
      },
      {
        method: 'link.state',
        params: {
          state: 'closed',
          reason: 'Native host has exited.',
          retry_in_ms: 500,
          retry_at: 5500,
          daemon: { version: '0.1.0', pid: 42 },
          down_since: 5000,
        },
      },
      { method: 'approval.event', params: ev },
    ]);
  }
});

test('down_since keeps the first moment the link went down', () => {
  const { bridge, at } = setup();
  bridge.linkState('ready', { daemon: { version: '1', daemon_pid: 1 } });
  at(2000);
  bridge.linkState('closed', { reason: 'x', retry_in_ms: 500 });
  at(3000);
  bridge.linkState('connecting');
  assert.equal(bridge.link.down_since, 2000);
  bridge.linkState('ready', { daemon: { version: '1', daemon_pid: 1 } });
  assert.equal(bridge.link.down_since, undefined);
  assert.equal(bridge.link.epoch, 2, 'each ready is a new epoch');
});

test('a closed panel port is forgotten; late replies are dropped', async () => {
  const { bridge, open, answer } = setup();
  let release;
  answer(() => new Promise((r) => (release = r)));
  const port = open();
  port.deliver({ id: 1, method: 'panel.status' });
  port.drop();
  assert.equal(bridge.ports.size, 0);
  release({});
  await flush();
  assert.equal(port.sent.length, 1); // only the greeting
  bridge.linkState('ready', {});
  assert.equal(port.sent.length, 1);
});

test('viaConnector refuses until the handshake is done', async () => {
  const req = viaConnector({ ready: false, link: null });
  await assert.rejects(req('panel.status', {}), { code: 'not_connected' });
  const sent = [];
  const link = {
    request: (m, p, o) => {
      sent.push([m, p, o]);
      return Promise.resolve({ fine: 1 });
    },
  };
  assert.deepEqual(
    await viaConnector({ ready: true, link })('panel.status', {}),
    { fine: 1 },
  );
  await viaConnector({ ready: true, link })('panel.export', {});
  assert.deepEqual(sent, [
    ['panel.status', {}, { timeoutMs: 10_000 }],
    ['panel.export', {}, { timeoutMs: 30_000 }],
  ]);
});

test('wirePanel registers onConnect and opens the panel from the toolbar', async () => {
  const onConnect = new FakeEvent();
  const behaviour = [];
  const api = {
    runtime: { onConnect },
    sidePanel: {
      setPanelBehavior: (b) => {
        behaviour.push(b);
        return Promise.resolve();
      },
    },
  };
  const taken = [];
  wirePanel(api, { connect: (p) => taken.push(p) });
  onConnect.emit('port');
  assert.deepEqual(taken, ['port']);
  assert.deepEqual(behaviour, [{ openPanelOnActionClick: true }]);
});

test('the Connector reports its states to the bridge', async () => {
  const ports = [];
  const timers = new FakeTimers();
  const states = [];
  const c = new Connector({
    connect: () => {
      const p = new FakePort();
      ports.push(p);
      return p;
    },
    hello: () => ({ protocol: 1 }),
    onRequest: async () => ({}),
    onState: (state, detail) => states.push([state, detail]),
    lastError: () => 'Native host has exited.',
    timers,
    backoff: new Backoff({ random: () => 0.5 }),
  });
  c.start();
  ports[0].deliver({
    id: 1,
    result: { protocol: 1, version: '9', daemon_pid: 7 },
  });
  await flush();
  ports[0].deliver({
    method: 'link.daemon_unavailable',
    params: { message: 'gone' },
  });
  ports[0].deliver({
    method: 'link.reconnected',
    params: { daemon_version: '10' },
  });
  ports[0].drop();
  assert.deepEqual(states, [
    ['connecting', {}],
    ['ready', { daemon: { protocol: 1, version: '9', daemon_pid: 7 } }],
    ['daemon_unavailable', { reason: 'gone' }],
    ['ready', { daemon: { protocol: 1, version: '10', daemon_pid: 7 } }],
    ['closed', { reason: 'Native host has exited.', retry_in_ms: 500 }],
  ]);
});

test('an approval.event from the daemon reaches the panel through the Connector', async () => {
  const { bridge, open } = setup();
  const port = open();
  const native = new FakePort();
  const c = new Connector({
    connect: () => native,
    hello: () => ({ protocol: 1 }),
    onRequest: async () => ({}),
    onEvent: (m, p) => bridge.event(m, p),
    onState: (s, d) => bridge.linkState(s, d),
    timers: new FakeTimers(),
  });
  c.start();
  native.deliver({
    id: 1,
    result: { protocol: 1, version: '1', daemon_pid: 2 },
  });
  await flush();
  const ev = { type: 'approved', request: { request_id: 'req_3' } };
  native.deliver({ method: 'approval.event', params: ev });
  assert.deepEqual(port.sent.at(-1), { method: 'approval.event', params: ev });
  // and the panel's request travels on the native link
  const pending = viaConnector(c)('approvals.list', {});
  assert.deepEqual(native.sent.at(-1), {
    id: 2,
    method: 'approvals.list',
    params: {},
  });
  native.deliver({ id: 2, result: { pending: [] } });
  assert.deepEqual(await pending, { pending: [] });
});
