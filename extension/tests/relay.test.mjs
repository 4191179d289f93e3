import assert from 'node:assert/strict';
import test from 'node:test';

import { Relay, cdpDetached, cdpEvent, tabInfo } from '../lib/relay.js';
import { flush } from './fakes.mjs';

/** A fake chrome.tabs + chrome.debugger with one open tab, 5. */
function fakeApi() {
  const calls = [];
  const tabs = new Map([
    [5, { id: 5, url: 'http://a/', title: 'A', active: true, windowId: 1 }],
  ]);
  const attached = new Set();
  const api = {
    calls,
    tabs: {
      query: async (q) => {
        calls.push(['query', q]);
        return [...tabs.values()];
      },
      create: async (o) => {
        calls.push(['create', o]);
        if (o.url.startsWith('devtools:')) throw new Error('Cannot create tab');
        const t = {
          id: 9,
          pendingUrl: o.url,
          url: '',
          active: o.active,
          windowId: 1,
        };
        tabs.set(9, t);
        return t;
      },
      remove: async (id) => {
        calls.push(['remove', id]);
        if (!tabs.delete(id)) throw new Error(`No tab with id: ${id}.`);
      },
      get: async (id) => {
        if (!tabs.has(id)) throw new Error(`No tab with id: ${id}.`);
        return tabs.get(id);
      },
    },
    debugger: {
      attach: async (target, version) => {
        calls.push(['attach', target.tabId, version]);
        await flush();
        if (!tabs.has(target.tabId))
          throw new Error(`No tab with id: ${target.tabId}.`);
        if (tabs.get(target.tabId).url.startsWith('chrome:')) {
          throw new Error('Cannot access a chrome:// URL');
        }
        if (attached.has(target.tabId)) {
          throw new Error(
            `Another debugger is already attached to the tab with id: ${target.tabId}.`,
          );
        }
        attached.add(target.tabId);
      },
      detach: async (target) => {
        calls.push(['detach', target.tabId]);
        if (!attached.delete(target.tabId)) {
          throw new Error(
            `Debugger is not attached to the tab with id: ${target.tabId}.`,
          );
        }
      },
      sendCommand: async (target, method, params) => {
        calls.push(['send', target, method]);
        if (!attached.has(target.tabId)) {
          throw new Error(
            `Debugger is not attached to the tab with id: ${target.tabId}.`,
          );
        }
        if (method === 'Runtime.evaluate')
          return { result: { value: params.expression } };
        if (method === 'Page.enable') return undefined;
        throw new Error(`{"code":-32601,"message":"'${method}' wasn't found"}`);
      },
    },
  };
  return { api, tabs, attached };
}

const count = (calls, kind) => calls.filter((c) => c[0] === kind).length;

test('concurrent cdp.send on one tab attaches once', async () => {
  const { api } = fakeApi();
  const relay = new Relay(api);
  const send = (expression) =>
    relay.handle('cdp.send', {
      tab_id: 5,
      method: 'Runtime.evaluate',
      params: { expression },
    });
  const got = await Promise.all([send('1'), send('2'), send('3')]);
  assert.deepEqual(
    got.map((r) => r.result.value),
    ['1', '2', '3'],
  );
  assert.equal(count(api.calls, 'attach'), 1);
  assert.deepEqual(api.calls[0], ['attach', 5, '1.3']);
  await send('4');
  assert.equal(count(api.calls, 'attach'), 1);
});

test('cdp.send passes session_id and defaults params', async () => {
  const { api } = fakeApi();
  const relay = new Relay(api);
  const r = await relay.handle('cdp.send', {
    tab_id: 5,
    method: 'Page.enable',
    session_id: 'S1',
  });
  assert.deepEqual(r, {});
  assert.deepEqual(api.calls.at(-1), [
    'send',
    { tabId: 5, sessionId: 'S1' },
    'Page.enable',
  ]);
});

test("CDP errors carry Chrome's text", async () => {
  const { api } = fakeApi();
  const relay = new Relay(api);
  await assert.rejects(
    relay.handle('cdp.send', { tab_id: 5, method: 'Foo.bar' }),
    {
      code: 'cdp_error',
      message: /'Foo.bar' wasn't found/,
    },
  );
});

test('a failed attach is not remembered', async () => {
  const { api, tabs } = fakeApi();
  tabs.get(5).url = 'chrome://settings';
  const relay = new Relay(api);
  const p = {
    tab_id: 5,
    method: 'Runtime.evaluate',
    params: { expression: '1' },
  };
  await assert.rejects(relay.handle('cdp.send', p), {
    code: 'restricted_page',
  });
  tabs.get(5).url = 'http://a/';
  assert.equal((await relay.handle('cdp.send', p)).result.value, '1');
  assert.equal(count(api.calls, 'attach'), 2);
});

test('already attached by this extension counts as attached', async () => {
  const { api, attached } = fakeApi();
  attached.add(5); // e.g. before the worker restarted
  const relay = new Relay(api);
  const r = await relay.handle('cdp.send', {
    tab_id: 5,
    method: 'Runtime.evaluate',
    params: { expression: 'x' },
  });
  assert.equal(r.result.value, 'x');
});

test('a detach is reported as detached, or tab_closed when the tab is gone', async () => {
  const { api, tabs, attached } = fakeApi();
  const relay = new Relay(api);
  const p = {
    tab_id: 5,
    method: 'Runtime.evaluate',
    params: { expression: '1' },
  };
  await relay.handle('cdp.send', p);
  attached.delete(5); // the user pressed Cancel, and onDetach was missed
  await assert.rejects(relay.handle('cdp.send', p), { code: 'detached' });
  assert.equal(relay.attachments.has(5), false);
  await relay.handle('cdp.send', p); // re-attaches
  attached.delete(5);
  tabs.delete(5);
  await assert.rejects(relay.handle('cdp.send', p), { code: 'tab_closed' });
  await assert.rejects(relay.handle('cdp.send', p), {
    code: 'tab_closed',
    message: /tab 5/,
  });
});

test('cdp.detach detaches and is idempotent', async () => {
  const { api, attached } = fakeApi();
  const relay = new Relay(api);
  await relay.handle('cdp.send', { tab_id: 5, method: 'Page.enable' });
  assert.deepEqual(await relay.handle('cdp.detach', { tab_id: 5 }), {});
  assert.equal(attached.has(5), false);
  assert.deepEqual(await relay.handle('cdp.detach', { tab_id: 5 }), {});
});

test('tabs methods', async () => {
  const { api } = fakeApi();
  const relay = new Relay(api);
  const q = await relay.handle('tabs.query', { url: 'http://a/*' });
  assert.deepEqual(api.calls[0], ['query', { url: 'http://a/*' }]);
  assert.deepEqual(q, {
    tabs: [{ id: 5, url: 'http://a/', title: 'A', active: true, window_id: 1 }],
  });
  const c = await relay.handle('tabs.create', { url: 'http://b/' });
  assert.deepEqual(api.calls[1], [
    'create',
    { url: 'http://b/', active: false },
  ]);
  assert.deepEqual(c.tab, {
    id: 9,
    url: 'http://b/',
    title: '',
    active: false,
    window_id: 1,
  });
  assert.deepEqual(await relay.handle('tabs.close', { tab_id: 9 }), {});
  await assert.rejects(relay.handle('tabs.close', { tab_id: 9 }), {
    code: 'tab_closed',
  });
  await assert.rejects(relay.handle('tabs.create', { url: 'devtools://x' }), {
    code: 'cdp_error',
  });
});

test('ping echoes', async () => {
  const relay = new Relay(fakeApi().api);
  assert.deepEqual(await relay.handle('ping', { echo: [1, 'a'] }), {
    pong: true,
    echo: [1, 'a'],
  });
  assert.deepEqual(await relay.handle('ping', {}), { pong: true, echo: null });
});

test('unknown methods and bad params', async () => {
  const relay = new Relay(fakeApi().api);
  await assert.rejects(relay.handle('nope', {}), {
    code: 'unknown_method',
    message: /"nope"/,
  });
  await assert.rejects(relay.handle('toString', {}), {
    code: 'unknown_method',
  });
  const bad = [
    ['cdp.send', { method: 'X.y' }],
    ['cdp.send', { tab_id: '5', method: 'X.y' }],
    ['cdp.send', { tab_id: 5 }],
    ['cdp.send', { tab_id: 5, method: 'X.y', params: [1] }],
    ['cdp.send', { tab_id: 5, method: 'X.y', session_id: 3 }],
    ['cdp.detach', {}],
    ['tabs.close', { tab_id: -1 }],
    ['tabs.create', {}],
    ['tabs.create', { url: 'http://b/', active: 'yes' }],
    ['tabs.query', { url: 5 }],
  ];
  for (const [method, params] of bad) {
    await assert.rejects(
      relay.handle(method, params),
      { code: 'bad_request' },
      `${method} ${JSON.stringify(params)}`,
    );
  }
});

test('event shapes', () => {
  assert.deepEqual(
    cdpEvent({ tabId: 5 }, 'Page.loadEventFired', { timestamp: 1 }),
    {
      tab_id: 5,
      method: 'Page.loadEventFired',
      params: { timestamp: 1 },
    },
  );
  assert.deepEqual(cdpEvent({ tabId: 5, sessionId: 'S' }, 'X.y', undefined), {
    tab_id: 5,
    method: 'X.y',
    params: {},
    session_id: 'S',
  });
  assert.equal(cdpEvent({ targetId: 'T' }, 'X.y', {}), null);
  assert.deepEqual(cdpDetached({ tabId: 5 }, 'canceled_by_user'), {
    tab_id: 5,
    reason: 'canceled_by_user',
  });
  assert.deepEqual(tabInfo({ id: 1, url: 'u', windowId: 2 }), {
    id: 1,
    url: 'u',
    title: '',
    active: false,
    window_id: 2,
  });
});
