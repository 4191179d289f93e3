import assert from 'node:assert/strict';
import test from 'node:test';

import { Backoff } from '../lib/backoff.js';
import { Connector } from '../lib/connector.js';
import { FakePort, FakeTimers, flush, logger } from './fakes.mjs';

const HELLO = { protocol: 1, role: 'extension', version: '0.1.0' };
const WELCOME = { protocol: 1, version: '0.1.0', daemon_pid: 1, max_frame: 1 };

function setup({ failConnect = 0 } = {}) {
  const ports = [];
  const timers = new FakeTimers();
  const log = logger();
  const events = [];
  let refusals = failConnect;
  const c = new Connector({
    connect: () => {
      if (refusals-- > 0) throw new Error('no host');
      const p = new FakePort();
      ports.push(p);
      return p;
    },
    hello: () => HELLO,
    onRequest: async () => ({}),
    onEvent: (m) => events.push(m),
    lastError: () => 'Native host has exited.',
    log,
    timers,
    backoff: new Backoff({ random: () => 0.5 }),
    helloTimeoutMs: 5000,
  });
  return { c, ports, timers, log, events };
}

async function welcome(port, id = 1) {
  port.deliver({ id, result: WELCOME });
  await flush();
}

test('hello is the first message on a new port', () => {
  const { c, ports } = setup();
  c.start();
  c.start(); // already connecting: no second port
  assert.equal(ports.length, 1);
  assert.deepEqual(ports[0].sent, [{ id: 1, method: 'hello', params: HELLO }]);
});

test('ready after hello; events flow only then', async () => {
  const { c, ports, log } = setup();
  c.start();
  assert.equal(c.notify('tabs.removed', { tab_id: 1 }), false);
  await welcome(ports[0]);
  assert.equal(c.ready, true);
  assert.deepEqual(log.lines, ['link ready (daemon 0.1.0)']);
  assert.equal(c.notify('tabs.removed', { tab_id: 1 }), true);
  assert.deepEqual(ports[0].sent.at(-1), {
    method: 'tabs.removed',
    params: { tab_id: 1 },
  });
});

test('reconnects with growing delays, reset after a good hello', async () => {
  const { c, ports, timers, log } = setup();
  c.start();
  ports[0].drop();
  assert.equal(c.ready, false);
  assert.deepEqual(timers.waiting, [500]);
  assert.equal(
    log.lines.at(-1),
    'link closed: Native host has exited.; retry in 500 ms',
  );
  timers.advance(499);
  assert.equal(ports.length, 1, 'no reconnect before the delay');
  timers.advance(1);
  assert.equal(ports.length, 2);
  assert.equal(ports[1].sent[0].method, 'hello');
  ports[1].drop();
  assert.deepEqual(timers.waiting, [1000]);
  timers.advance(1000);
  ports[2].drop();
  assert.deepEqual(timers.waiting, [2000]);
  timers.advance(2000);
  await welcome(ports[3]);
  assert.equal(c.ready, true);
  ports[3].drop();
  assert.deepEqual(timers.waiting, [500], 'backoff reset by the hello');
});

test('a hello error or timeout closes the port and retries', async () => {
  const { c, ports, timers, log } = setup();
  c.start();
  ports[0].deliver({
    id: 1,
    error: { code: 'daemon_unavailable', message: 'x', retryable: true },
  });
  await flush();
  assert.equal(ports[0].disconnected, true);
  assert.match(
    log.lines.at(-1),
    /hello failed: daemon_unavailable; retry in 500 ms/,
  );
  timers.advance(500);
  assert.equal(ports.length, 2);
  timers.advance(5000); // hello timeout
  await flush();
  assert.equal(ports[1].disconnected, true);
  assert.match(log.lines.at(-1), /hello failed: timeout; retry in 1000 ms/);
});

test('stopped on purpose: the port stays open; Start, then ready', async () => {
  const states = [];
  const { c, ports, timers } = setup();
  c.opts.onState = (state, detail) => states.push([state, detail.reason]);
  c.start();
  ports[0].deliver({
    id: 1,
    error: { code: 'daemon_stopped', message: 'stopped (SIGTERM)' },
  });
  await flush();
  assert.equal(ports[0].disconnected, false, 'no reconnect loop');
  assert.deepEqual(states.at(-1), ['stopped', 'stopped (SIGTERM)']);
  timers.advance(60_000);
  assert.equal(ports.length, 1);
  const started = c.startDaemon();
  assert.deepEqual(ports[0].sent.at(-1), {
    id: 2,
    method: 'daemon.start',
    params: {},
  });
  ports[0].deliver({
    method: 'link.reconnected',
    params: { daemon_version: '0.2.0', daemon_pid: 5 },
  });
  ports[0].deliver({ id: 2, result: { started: true } });
  assert.deepEqual(await started, { started: true });
  assert.equal(c.ready, true);
  assert.equal(states.at(-1)[0], 'ready');
  assert.equal(c.daemon.daemon_pid, 5);
  ports[0].deliver({ method: 'link.daemon_stopped', params: { message: 'm' } });
  assert.equal(c.ready, false);
  assert.deepEqual(states.at(-1), ['stopped', 'm']);
});

test('a daemon speaking another protocol is refused', async () => {
  const { c, ports } = setup();
  c.start();
  ports[0].deliver({ id: 1, result: { ...WELCOME, protocol: 2 } });
  await flush();
  assert.equal(c.ready, false);
  assert.equal(ports[0].disconnected, true);
});

test('a connect that throws is retried', () => {
  const { c, ports, timers, log } = setup({ failConnect: 2 });
  c.start();
  assert.match(log.lines[0], /connect failed: no host; retry in 500 ms/);
  timers.advance(500);
  timers.advance(1000);
  assert.equal(ports.length, 1);
});

test('host link.* events are handled, others passed on', async () => {
  const { c, ports, log, events } = setup();
  c.start();
  await welcome(ports[0]);
  ports[0].deliver({
    method: 'link.reconnected',
    params: { daemon_version: '0.2.0' },
  });
  ports[0].deliver({
    method: 'link.daemon_unavailable',
    params: { message: 'm' },
  });
  ports[0].deliver({ method: 'other', params: {} });
  assert.match(log.lines[1], /daemon reconnected \(daemon 0\.2\.0\)/);
  assert.match(log.lines[2], /daemon unavailable/);
  assert.deepEqual(events, ['other']);
});

test('stop closes for good', async () => {
  const { c, ports, timers } = setup();
  c.start();
  await welcome(ports[0]);
  c.stop();
  assert.equal(ports[0].disconnected, true);
  assert.deepEqual(timers.waiting, []);
  ports[0].drop();
  assert.equal(ports.length, 1);
});

test('an async hello is awaited; one that fails closes the port and retries', async () => {
  const ports = [];
  const timers = new FakeTimers();
  let fail = true;
  const c = new Connector({
    connect: () => {
      const p = new FakePort();
      ports.push(p);
      return p;
    },
    hello: async () => {
      await flush();
      if (fail) throw new Error('storage unavailable');
      return { ...HELLO, browser_id: 'b' };
    },
    onRequest: async () => ({}),
    log: logger(),
    timers,
    backoff: new Backoff({ random: () => 0.5 }),
  });
  c.start();
  await flush();
  await flush();
  assert.deepEqual(ports[0].sent, [], 'nothing sent without params');
  assert.equal(ports[0].disconnected, true);
  fail = false;
  timers.advance(500);
  await flush();
  await flush();
  assert.deepEqual(ports[1].sent, [
    { id: 1, method: 'hello', params: { ...HELLO, browser_id: 'b' } },
  ]);
});
