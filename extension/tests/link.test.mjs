import assert from 'node:assert/strict';
import test from 'node:test';

import { ProtocolError } from '../lib/errors.js';
import { Link, LinkClosedError, jsonBound, jsonSize } from '../lib/link.js';
import { FakePort, FakeTimers, flush, logger } from './fakes.mjs';

function setup(opts = {}) {
  const port = new FakePort();
  const timers = new FakeTimers();
  const log = logger();
  const closes = [];
  const events = [];
  const link = new Link(port, {
    onRequest: async (method, params) => {
      if (method === 'ping') return { pong: true, echo: params.echo };
      if (method === 'boom') throw new TypeError('kaput');
      if (method === 'gone') throw new ProtocolError('tab_closed', 'gone');
      if (method === 'void') return undefined;
      throw new ProtocolError('unknown_method', `no ${method}`);
    },
    onEvent: (method, params) => events.push([method, params]),
    onClose: (reason) => closes.push(reason),
    lastError: () => 'Native host has exited.',
    log,
    timers,
    ...opts,
  });
  return { port, timers, log, closes, events, link };
}

test('matches replies to the requests sent', async () => {
  const { port, link } = setup();
  const a = link.request('hello', { protocol: 1 });
  const b = link.request('ping');
  assert.deepEqual(port.sent, [
    { id: 1, method: 'hello', params: { protocol: 1 } },
    { id: 2, method: 'ping' },
  ]);
  port.deliver({ id: 2, result: { pong: true } });
  port.deliver({ id: 1, error: { code: 'protocol_mismatch', message: 'm' } });
  assert.deepEqual(await b, { pong: true });
  await assert.rejects(a, (err) => {
    assert.ok(err instanceof ProtocolError);
    assert.equal(err.code, 'protocol_mismatch');
    assert.equal(err.retryable, false);
    return true;
  });
});

test('a reply matching nothing is logged and dropped', () => {
  const { port, log, link } = setup();
  port.deliver({ id: 99, result: {} });
  assert.match(log.lines[0], /reply #99 matches no request/);
  assert.equal(link.closed, false);
});

test('a request with no reply times out', async () => {
  const { timers, link } = setup();
  const p = link.request('ping', {}, { timeoutMs: 1000 });
  timers.advance(999);
  timers.advance(1);
  await assert.rejects(p, { code: 'timeout' });
});

test("serves the peer's requests", async () => {
  const { port } = setup();
  port.deliver({ id: 5, method: 'ping', params: { echo: 'hi' } });
  port.deliver({ id: 6, method: 'boom' });
  port.deliver({ id: 7, method: 'gone' });
  port.deliver({ id: 8, method: 'void' });
  port.deliver({ id: 9, method: 42 });
  await flush();
  const byId = Object.fromEntries(port.sent.map((m) => [m.id, m]));
  assert.deepEqual(byId[5], { id: 5, result: { pong: true, echo: 'hi' } });
  assert.deepEqual(byId[6].error, {
    code: 'internal',
    message: 'boom: kaput',
    retryable: false,
  });
  assert.equal(byId[7].error.code, 'tab_closed');
  assert.deepEqual(byId[8], { id: 8, result: {} });
  assert.equal(byId[9].error.code, 'bad_request');
});

test('passes events on', () => {
  const { port, events } = setup();
  port.deliver({ method: 'link.reconnected', params: { daemon_version: '1' } });
  assert.deepEqual(events, [['link.reconnected', { daemon_version: '1' }]]);
});

test('handles a chunked request as if it arrived whole', async () => {
  const { port } = setup();
  const echo = 'ß'.repeat(5000);
  const bytes = Buffer.from(
    JSON.stringify({ id: 3, method: 'ping', params: { echo } }),
  );
  const size = 4096;
  const total = Math.ceil(bytes.length / size);
  for (let seq = 0; seq < total; seq++) {
    const data = bytes
      .subarray(seq * size, (seq + 1) * size)
      .toString('base64');
    port.deliver({ chunk: { id: 'c1', seq, total, data } });
  }
  await flush();
  assert.deepEqual(port.sent, [{ id: 3, result: { pong: true, echo } }]);
});

test('a result over the size limit is answered with message_too_large', async () => {
  const { port, log, link } = setup({ maxBytes: 64 });
  port.deliver({ id: 4, method: 'ping', params: { echo: 'x'.repeat(100) } });
  await flush();
  assert.equal(port.sent[0].error.code, 'message_too_large');
  assert.match(log.lines[0], /ping #4 failed: message_too_large/);
  assert.doesNotMatch(log.lines.join('\n'), /xxx/, 'logs no contents');
  const big = { tab_id: 1, method: 'X.y', params: { s: 'y'.repeat(100) } };
  assert.equal(link.notify('cdp.event', big), false);
  assert.equal(link.notify('tabs.removed', { tab_id: 1 }), true);
  assert.deepEqual(port.sent.at(-1).method, 'tabs.removed');
  assert.match(log.lines[1], /event cdp.event dropped: message_too_large/);
});

test('jsonBound never undercounts the UTF-8 size of the JSON', () => {
  const values = [
    null,
    true,
    0,
    -1.7976931348623157e308,
    5e-324,
    '',
    'plain ascii',
    'quotes " and \\ backslashes',
    'controls \u0000\u0001\n\t',
    'é ü ß — 日本語',
    'astral 😀🎉',
    'lone \ud800 surrogate',
    [1, undefined, 'x', [[]], {}],
    { a: 1, b: undefined, 'ké\ny': ['v', { n: null }] },
    Object.assign(Object.create(null), { z: 'y' }),
    { id: 1, result: { data: 'iVBORw0KGgo'.repeat(1000) } },
  ];
  for (const v of values) {
    const exact = new TextEncoder().encode(JSON.stringify(v)).length;
    assert.ok(
      jsonBound(v) >= exact,
      `${JSON.stringify(v).slice(0, 40)}: bound ${jsonBound(v)} < ${exact}`,
    );
  }
  for (const odd of [new Date(0), { toJSON: () => 'x' }, { f() {} }, 1n]) {
    assert.equal(jsonBound({ v: odd }), Infinity);
  }
  const deep = [];
  let cur = deep;
  for (let i = 0; i < 100; i++) cur = cur[0] = [];
  assert.equal(jsonBound(deep), Infinity);
});

test('a reply under the bound is not serialised to be sized', async () => {
  const { port } = setup({
    onRequest: async () => ({ data: 'A'.repeat(1000) }),
  });
  port.postMessage = (msg) => port.sent.push(msg); // Chrome's own copy is not ours
  port.deliver({ id: 1, method: 'shot', params: {} });
  const stringify = JSON.stringify;
  let calls = 0;
  JSON.stringify = (...a) => (calls++, stringify(...a));
  try {
    await flush();
  } finally {
    JSON.stringify = stringify;
  }
  assert.equal(port.sent[0].result.data.length, 1000);
  assert.equal(calls, 0);
});

test('a reply is sized exactly only when the bound is over the limit', async () => {
  const data = 'A'.repeat(300); // base64: 300 bytes of JSON, bound 1,802
  const { port } = setup({
    maxBytes: 400,
    onRequest: async () => ({ data }),
  });
  port.deliver({ id: 1, method: 'shot', params: {} });
  await flush();
  assert.deepEqual(
    port.sent[0],
    { id: 1, result: { data } },
    'over the bound, under the limit: sent',
  );
  assert.ok(jsonSize({ id: 1, result: { data } }) <= 400);
  const big = setup({ maxBytes: 200, onRequest: async () => ({ data }) });
  big.port.deliver({ id: 2, method: 'shot', params: {} });
  await flush();
  assert.equal(big.port.sent[0].error.code, 'message_too_large');
  assert.match(
    big.port.sent[0].error.message,
    /is 3\d\d bytes, over the 200-byte limit/,
  );
});

test('close is idempotent, removes listeners and rejects pending requests', async () => {
  const { port, timers, closes, link } = setup();
  const p = link.request('hello', {});
  link.close('bye');
  link.close('again');
  port.drop();
  assert.deepEqual(closes, ['bye']);
  assert.equal(port.onMessage.listeners.size, 0);
  assert.equal(port.onDisconnect.listeners.size, 0);
  assert.equal(port.disconnected, true);
  assert.deepEqual(timers.queue, [], 'the request timer is cleared');
  await assert.rejects(p, LinkClosedError);
  assert.equal(link.notify('cdp.event', {}), false);
});

test("the port disconnecting closes the link with Chrome's reason", async () => {
  const { port, closes, link } = setup();
  port.deliver({ id: 1, method: 'ping' });
  port.drop();
  await flush();
  assert.deepEqual(closes, ['Native host has exited.']);
  assert.equal(link.closed, true);
  assert.deepEqual(port.sent, [], 'no reply after close');
});

test('a failed send closes the link', () => {
  const { port, closes, link } = setup();
  port.disconnected = true;
  assert.equal(link.notify('tabs.removed', { tab_id: 1 }), false);
  assert.match(closes[0], /send failed: Attempting to use a disconnected port/);
});

test('an event over its cap is dropped and counted; the link carries on', () => {
  const { port, log, link } = setup();
  const big = {
    tab_id: 1,
    method: 'Network.x',
    params: { d: 'x'.repeat(2000) },
  };
  assert.equal(
    link.notify('cdp.event', big, {
      maxBytes: 1000,
      label: 'cdp.event Network.x',
    }),
    false,
  );
  assert.equal(link.notify('cdp.event', big, { maxBytes: 1000 }), false);
  assert.equal(link.dropped, 2);
  assert.match(
    log.lines[0],
    /^event cdp\.event Network\.x dropped: message_too_large \(\d+ bytes, cap 1000\); 1 events dropped/,
  );
  assert.ok(
    log.lines.every((l) => !l.includes('xxxx')),
    'never the contents',
  );
  assert.equal(
    link.notify(
      'cdp.event',
      { tab_id: 1, method: 'Page.x', params: {} },
      { maxBytes: 1000 },
    ),
    true,
  );
  assert.equal(port.sent.length, 1);
  // the cap never raises the link's own limit
  const small = setup({ maxBytes: 100 });
  assert.equal(
    small.link.notify('e', { d: 'y'.repeat(200) }, { maxBytes: 1e9 }),
    false,
  );
});

test('a flood of dropped events logs a bounded number of lines', () => {
  const { log, link } = setup();
  const big = { d: 'x'.repeat(200) };
  for (let i = 0; i < 1000; i++)
    link.notify('cdp.event', big, { maxBytes: 100 });
  assert.equal(link.dropped, 1000);
  assert.equal(log.lines.length, 10 + 10); // the first ten, then every 100th
});

test('a part of a reply goes ahead of the reply, or stays in it', async () => {
  const { port, link } = setup({
    maxBytes: 200,
    onRequest: async (method, params, reply) => ({
      sent: reply.part({ step: 0, result: params.part }),
    }),
  });
  port.deliver({ id: 5, method: 'cdp.sequence', params: { part: 'img' } });
  await flush();
  assert.deepEqual(port.sent, [
    {
      method: 'reply.part',
      params: { id: 5, part: { step: 0, result: 'img' } },
    },
    { id: 5, result: { sent: true } },
  ]);
  // Too big to go on its own: part says so, and the caller keeps it.
  port.deliver({
    id: 6,
    method: 'cdp.sequence',
    params: { part: 'x'.repeat(300) },
  });
  await flush();
  assert.deepEqual(port.sent.slice(2), [{ id: 6, result: { sent: false } }]);
  assert.equal(link.closed, false);
});
