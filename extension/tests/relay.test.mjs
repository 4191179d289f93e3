import assert from 'node:assert/strict';
import test from 'node:test';

import { AUTO_ATTACH } from '../lib/attachments.js';
import { MAX_EVENT_BYTES, cdpDetached, cdpEvent } from '../lib/relay.js';
import { SELF_ID, count, sentMethods } from './fakechrome.mjs';
import { evaluate, setup } from './harness.mjs';

test('concurrent cdp.send on one tab attaches once', async () => {
  const { c, relay } = setup();
  const send = (x) => relay.handle('cdp.send', evaluate(5, x));
  const got = await Promise.all([send('1'), send('2'), send('3')]);
  assert.deepEqual(
    got.map((r) => r.result.value),
    ['1', '2', '3'],
  );
  assert.equal(count(c.calls, 'attach'), 1);
  assert.deepEqual(
    c.calls.find((x) => x[0] === 'attach'),
    ['attach', 5, '1.3'],
  );
  await send('4');
  assert.equal(count(c.calls, 'attach'), 1);
});

test('attaching turns on auto-attach and announces cdp.attached', async () => {
  const { c, relay, sent } = setup();
  let params;
  c.sendHooks.push((t, m, p) => {
    if (m === 'Target.setAutoAttach') params = { target: t, p };
  });
  await relay.handle('cdp.send', evaluate(5));
  assert.deepEqual(params, { target: { tabId: 5 }, p: AUTO_ATTACH });
  assert.deepEqual(AUTO_ATTACH, {
    autoAttach: true,
    waitForDebuggerOnStart: false,
    flatten: true,
  });
  assert.deepEqual(sent('cdp.attached'), [{ tab_id: 5 }]);
});

test('a failing Target.setAutoAttach is logged, not fatal', async () => {
  const { c, relay, log } = setup();
  c.sendHooks.push((t, m) => {
    if (m === 'Target.setAutoAttach') throw new Error('not allowed');
  });
  assert.equal(
    (await relay.handle('cdp.send', evaluate(5, 'x'))).result.value,
    'x',
  );
  assert.ok(log.lines.some((l) => /setAutoAttach on tab 5 failed/.test(l)));
});

test('an OOPIF child session gets auto-attach too; events carry session_id', async () => {
  const { c, relay, sent } = setup();
  const autos = [];
  c.sendHooks.push((t, m) => {
    if (m === 'Target.setAutoAttach') autos.push(t);
  });
  await relay.handle('cdp.send', evaluate(5));
  const attachedToTarget = {
    sessionId: 'S1',
    targetInfo: { type: 'iframe', targetId: 'T1', url: 'http://b/' },
    waitingForDebugger: false,
  };
  c.debugger.onEvent.emit(
    { tabId: 5 },
    'Target.attachedToTarget',
    attachedToTarget,
  );
  c.debugger.onEvent.emit({ tabId: 5 }, 'Target.attachedToTarget', {
    sessionId: 'W1',
    targetInfo: { type: 'worker' },
  });
  await relay.handle('cdp.send', evaluate(5));
  assert.deepEqual(autos, [{ tabId: 5 }, { tabId: 5, sessionId: 'S1' }]);
  c.debugger.onEvent.emit(
    { tabId: 5, sessionId: 'S1' },
    'Runtime.consoleAPICalled',
    { type: 'log' },
  );
  assert.deepEqual(sent('cdp.event').at(-1), {
    tab_id: 5,
    method: 'Runtime.consoleAPICalled',
    params: { type: 'log' },
    session_id: 'S1',
  });
});

test('cdp.send passes session_id and defaults params', async () => {
  const { c, relay } = setup();
  const r = await relay.handle('cdp.send', {
    tab_id: 5,
    method: 'Page.enable',
    session_id: 'S1',
  });
  assert.deepEqual(r, {});
  assert.deepEqual(c.calls.at(-1), [
    'send',
    { tabId: 5, sessionId: 'S1' },
    'Page.enable',
  ]);
});

test("CDP errors carry Chrome's text", async () => {
  const { relay } = setup();
  await assert.rejects(
    relay.handle('cdp.send', { tab_id: 5, method: 'Foo.bar' }),
    {
      code: 'cdp_error',
      message: /'Foo.bar' wasn't found/,
    },
  );
});

test('a refused attach is not remembered', async () => {
  const { c, relay } = setup();
  c.tabsMap.get(5).url = 'chrome://settings';
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'restricted_page',
    message: /tab 5: it shows a chrome:\/\/ page/,
  });
  assert.equal(count(c.calls, 'attach'), 0, 'refused before attaching');
  c.tabsMap.get(5).url = 'http://a/';
  assert.equal((await relay.handle('cdp.send', evaluate(5))).result.value, '1');
  assert.equal(count(c.calls, 'attach'), 1);
});

test('restricted pages are refused by URL, pending URL included', async () => {
  const cases = [
    [{ url: 'chrome://version/' }, /chrome:\/\/ page/],
    [{ url: 'about:blank', pendingUrl: 'devtools://devtools/x' }, /devtools/],
    [{ url: 'https://chromewebstore.google.com/detail/x' }, /Web Store/],
    [
      { url: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/p.html' },
      /an extension's page/,
    ],
    [{ url: `chrome-extension://${SELF_ID}/sidepanel.html` }, /extension's/],
    [{ url: 'file:///home/u/.gasoline/credentials/approver.token' }, /file:/],
    [{ url: 'http://a/', pendingUrl: 'file:///etc/passwd' }, /file:/],
  ];
  for (const [props, message] of cases) {
    const { c, relay } = setup();
    Object.assign(c.tabsMap.get(5), props);
    await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
      code: 'restricted_page',
      message,
    });
    assert.equal(count(c.calls, 'attach'), 0);
  }
  const { c, relay } = setup();
  c.tabsMap.get(5).url = 'about:blank';
  await relay.handle('cdp.send', evaluate(5));
});

test('a tab that goes to a page no agent may drive is detached and refused', async () => {
  const { c, relay, sent } = setup();
  await relay.handle('cdp.send', evaluate(5));
  assert.equal(relay.attachments.has(5), true);
  c.update(5, { url: `chrome-extension://${SELF_ID}/sidepanel.html` });
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'restricted_page',
    message: /tab 5: it shows an extension's page/,
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(count(c.calls, 'detach'), 1, 'its debugger was detached');
  assert.deepEqual(sent('cdp.detached').at(-1), {
    tab_id: 5,
    reason: 'restricted_page',
  });
  c.update(5, { url: 'http://a/again' });
  assert.equal((await relay.handle('cdp.send', evaluate(5))).result.value, '1');
});

test('Page.navigate to a page no agent may drive is refused', async () => {
  const { c, relay } = setup();
  for (const url of [
    'file:///etc/passwd',
    'javascript:alert(1)',
    'view-source:http://a/',
    `chrome-extension://${SELF_ID}/sidepanel.html`,
    'about:srcdoc',
  ]) {
    await assert.rejects(
      relay.handle('cdp.send', {
        tab_id: 5,
        method: 'Page.navigate',
        params: { url },
      }),
      { code: 'restricted_page' },
      url,
    );
  }
  assert.equal(
    c.calls.filter((x) => x[0] === 'send' && x[2] === 'Page.navigate').length,
    0,
  );
});

test("Chrome's own refusal is still mapped", async () => {
  const { c, relay } = setup();
  const attach = c.debugger.attach;
  c.debugger.attach = async () => {
    throw new Error(
      'Cannot access a chrome-extension:// URL of different extension',
    );
  };
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'restricted_page',
    message: /another extension/,
  });
  c.debugger.attach = attach;
});

test('already attached by this extension counts as attached', async () => {
  const { c, relay } = setup();
  await relay.start();
  c.attached.add(5); // e.g. before the worker restarted
  assert.equal(
    (await relay.handle('cdp.send', evaluate(5, 'x'))).result.value,
    'x',
  );
});

test('a detach without notice is reported as detached, or tab_closed when the tab is gone', async () => {
  const { c, relay } = setup();
  await relay.handle('cdp.send', evaluate(5));
  c.attached.delete(5); // onDetach was missed
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'detached',
  });
  assert.equal(relay.attachments.has(5), false);
  await relay.handle('cdp.send', evaluate(5)); // re-attaches
  c.attached.delete(5);
  c.tabsMap.delete(5);
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'tab_closed',
  });
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'tab_closed',
    message: /tab 5/,
  });
});

test('cdp.detach detaches and is idempotent', async () => {
  const { c, relay } = setup();
  await relay.handle('cdp.send', { tab_id: 5, method: 'Page.enable' });
  assert.deepEqual(await relay.handle('cdp.detach', { tab_id: 5 }), {});
  assert.equal(c.attached.has(5), false);
  assert.deepEqual(await relay.handle('cdp.detach', { tab_id: 5 }), {});
});

test('ping echoes', async () => {
  const { relay } = setup();
  assert.deepEqual(await relay.handle('ping', { echo: [1, 'a'] }), {
    pong: true,
    echo: [1, 'a'],
  });
  assert.deepEqual(await relay.handle('ping', {}), { pong: true, echo: null });
});

test('unknown methods and bad params', async () => {
  const { relay } = setup();
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
    ['cdp.attach', { tab_id: 5, force: 'yes' }],
    ['cdp.detach', {}],
    ['config.set', { idle_detach_ms: 10 }],
    ['config.set', { idle_detach_ms: 1.5e3 + 0.5 }],
    ['config.set', { idle_detach_ms: 25 * 3600_000 }],
    ['tabs.close', { tab_id: -1 }],
    ['tabs.create', {}],
    ['tabs.create', { url: 'http://b/', active: 'yes' }],
    ['tabs.create', { url: 'http://b/', wait_until: 'idle' }],
    ['tabs.create', { url: 'http://b/', timeout_ms: 60_001 }],
    ['tabs.create', { url: 'http://b/', group_id: 'g' }],
    ['tabs.query', { url: 5 }],
    ['tabs.get', {}],
    ['tabs.activate', { tab_id: null }],
    ['tabs.group', { tab_ids: [] }],
    ['tabs.group', { tab_ids: [5], color: 'mauve' }],
    ['tabs.group', { tab_ids: [5], title: 7 }],
    ['tabs.ungroup', { tab_ids: 5 }],
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
  assert.equal(
    cdpEvent({ tabId: 5 }, 'Page.screencastVisibilityChanged', {
      visible: true,
    }),
    null,
    "a screenshot hold's visibility changes stay in the extension",
  );
  assert.deepEqual(cdpDetached({ tabId: 5 }, 'canceled_by_user'), {
    tab_id: 5,
    reason: 'canceled_by_user',
  });
});

test('cdp.event goes out with the 8 MiB cap and names its CDP method', () => {
  const { c, events } = setup();
  c.debugger.onEvent.emit({ tabId: 5 }, 'Network.dataReceived', {
    dataLength: 1,
  });
  assert.deepEqual(events.at(-1)[2], {
    maxBytes: 8 * 1024 * 1024,
    label: 'cdp.event Network.dataReceived',
  });
  assert.equal(MAX_EVENT_BYTES, 8 * 1024 * 1024);
});

test('cdp.sequence runs steps in order in one request', async () => {
  const { c, relay } = setup();
  const r = await relay.handle('cdp.sequence', {
    tab_id: 5,
    steps: [
      { method: 'Runtime.evaluate', params: { expression: 'a' } },
      { method: 'Page.enable', session_id: 'S1' },
      { method: 'Runtime.evaluate', params: { expression: 'b' } },
    ],
  });
  assert.deepEqual(r, {
    results: [
      { result: { result: { value: 'a' } } },
      { result: {} },
      { result: { result: { value: 'b' } } },
    ],
  });
  const sends = sentMethods(c.calls);
  assert.deepEqual(sends.slice(-3), [
    'Runtime.evaluate',
    'Page.enable',
    'Runtime.evaluate',
  ]);
  assert.deepEqual(c.calls.at(-2)[1], { tabId: 5, sessionId: 'S1' });
});

test('cdp.sequence stops at a failure or an exception; always steps still run', async () => {
  const { c, relay } = setup();
  c.sendHooks.push((t, m, p) =>
    m === 'Runtime.evaluate' && p.expression === 'throw'
      ? { exceptionDetails: { text: 'Uncaught' } }
      : undefined,
  );
  const r = await relay.handle('cdp.sequence', {
    tab_id: 5,
    steps: [
      {
        method: 'Runtime.evaluate',
        params: { expression: 'throw' },
        stop_on_exception: true,
      },
      { method: 'Runtime.evaluate', params: { expression: 'skipped' } },
      {
        method: 'Runtime.evaluate',
        params: { expression: 'cleanup' },
        always: true,
      },
    ],
  });
  assert.deepEqual(r.results, [
    { result: { exceptionDetails: { text: 'Uncaught' } } },
    { skipped: true },
    { result: { result: { value: 'cleanup' } } },
  ]);
  const failed = await relay.handle('cdp.sequence', {
    tab_id: 5,
    steps: [
      { method: 'Foo.bar' },
      { method: 'Runtime.evaluate', params: { expression: 'x' } },
      { method: 'Page.enable', always: true },
    ],
  });
  assert.equal(failed.results[0].error.code, 'cdp_error');
  assert.deepEqual(failed.results.slice(1), [
    { skipped: true },
    { result: {} },
  ]);
});

test('cdp.sequence refuses malformed steps before running any', async () => {
  const { c, relay } = setup();
  for (const steps of [
    undefined,
    [],
    Array(17).fill({ method: 'Page.enable' }),
    [null],
    [{ method: '' }],
    [{ method: 'Page.enable', always: 'yes' }],
  ]) {
    await assert.rejects(relay.handle('cdp.sequence', { tab_id: 5, steps }), {
      code: 'bad_request',
    });
  }
  assert.equal(count(c.calls, 'send'), 0);
});

test('cdp.sequence sends an overlap step with the next one', async () => {
  const { c, relay } = setup();
  let release;
  const held = new Promise((r) => (release = r));
  c.sendHooks.push((t, m) => (m === 'Page.startScreencast' ? held : undefined));
  const done = relay.handle('cdp.sequence', {
    tab_id: 5,
    steps: [
      { method: 'Page.startScreencast', overlap: true },
      { method: 'Runtime.evaluate', params: { expression: 'mask' } },
      { method: 'Runtime.evaluate', params: { expression: 'after' } },
    ],
  });
  const sent = () => sentMethods(c.calls);
  for (let i = 0; i < 20 && !sent().includes('Runtime.evaluate'); i++) {
    await new Promise((r) => setImmediate(r));
  }
  assert.deepEqual(
    sent().slice(-2),
    ['Page.startScreencast', 'Runtime.evaluate'],
    'the next step went out before the overlap step answered',
  );
  release({});
  const r = await done;
  assert.deepEqual(
    r.results.map((x) => Object.keys(x)[0]),
    ['result', 'result', 'result'],
  );
  assert.equal(r.results[2].result.result.value, 'after');
});

test('cdp.sequence answers without waiting for its background steps', async () => {
  const { c, relay, log } = setup();
  let release;
  const stop = new Promise((r) => (release = r));
  c.sendHooks.push((t, m) => {
    if (m === 'Page.stopScreencast') return stop;
    if (m === 'Runtime.releaseObjectGroup') throw new Error('no such group');
    return undefined;
  });
  const r = await relay.handle('cdp.sequence', {
    tab_id: 5,
    steps: [
      { method: 'Runtime.evaluate', params: { expression: 'held' } },
      { method: 'Page.stopScreencast', always: true, background: true },
      { method: 'Runtime.releaseObjectGroup', background: true },
    ],
  });
  assert.deepEqual(r.results, [
    { result: { result: { value: 'held' } } },
    { background: true },
    { background: true },
  ]);
  const sends = () => sentMethods(c.calls);
  assert.ok(sends().includes('Page.stopScreencast'), 'sent, not answered');
  release({});
  for (let i = 0; i < 20 && !log.lines.some((l) => /background/.test(l)); i++) {
    await new Promise((res) => setImmediate(res));
  }
  assert.ok(
    log.lines.some((l) =>
      /background Runtime.releaseObjectGroup on tab 5 failed/.test(l),
    ),
    log.lines.join('\n'),
  );
});

test("the tab's next command waits until the background steps are sent", async () => {
  const { c, relay } = setup();
  // Chrome detaches the tab during the check: the background steps must
  // attach again before they are sent, which leaves a window in which a
  // command arriving meanwhile would overtake the second one.
  c.sendHooks.push((t, m, p) => {
    if (m === 'Runtime.evaluate' && p.expression === 'held') {
      c.detach(5, 'target_closed');
      return { result: { value: 'ok' } };
    }
    if (m === 'Page.stopScreencast' || m === 'Runtime.releaseObjectGroup') {
      return {};
    }
    return undefined;
  });
  const r = await relay.handle('cdp.sequence', {
    tab_id: 5,
    steps: [
      { method: 'Runtime.evaluate', params: { expression: 'held' } },
      { method: 'Page.stopScreencast', always: true, background: true },
      { method: 'Runtime.releaseObjectGroup', always: true, background: true },
    ],
  });
  assert.deepEqual(r.results.slice(1), [
    { background: true },
    { background: true },
  ]);
  await relay.handle('cdp.send', evaluate(5, 'next'));
  const sends = sentMethods(c.calls);
  assert.deepEqual(sends.slice(-3), [
    'Page.stopScreencast',
    'Runtime.releaseObjectGroup',
    'Runtime.evaluate',
  ]);
});

test('cdp.sequence skips background steps after a failure unless always', async () => {
  const { c, relay } = setup();
  c.sendHooks.push((t, m) => (m === 'Page.stopScreencast' ? {} : undefined));
  const r = await relay.handle('cdp.sequence', {
    tab_id: 5,
    steps: [
      { method: 'Foo.bar' },
      {
        method: 'Runtime.evaluate',
        params: { expression: 'x' },
        background: true,
      },
      { method: 'Page.stopScreencast', always: true, background: true },
    ],
  });
  assert.equal(r.results[0].error.code, 'cdp_error');
  assert.deepEqual(r.results.slice(1), [
    { skipped: true },
    { background: true },
  ]);
  await relay.handle('cdp.send', evaluate(5, 'next'));
  const sends = sentMethods(c.calls);
  assert.deepEqual(sends.slice(-3), [
    'Foo.bar',
    'Page.stopScreencast',
    'Runtime.evaluate',
  ]);
});

test('cdp.sequence refuses a background step before an awaited one', async () => {
  const { c, relay } = setup();
  await assert.rejects(
    relay.handle('cdp.sequence', {
      tab_id: 5,
      steps: [
        { method: 'Page.stopScreencast', background: true },
        { method: 'Runtime.evaluate', params: { expression: 'x' } },
      ],
    }),
    { code: 'bad_request', message: /background steps must come last/ },
  );
  await assert.rejects(
    relay.handle('cdp.sequence', {
      tab_id: 5,
      steps: [{ method: 'Page.enable', background: 'yes' }],
    }),
    { code: 'bad_request' },
  );
  assert.equal(count(c.calls, 'send'), 0);
});

test('background steps go with the last awaited step when it has overlap', async () => {
  const { c, relay } = setup();
  let answer;
  const check = new Promise((r) => (answer = r));
  c.sendHooks.push((t, m, p) => {
    if (m === 'Runtime.evaluate' && p.expression === 'held') return check;
    if (m === 'Page.stopScreencast') return {};
    return undefined;
  });
  let done = false;
  const r = relay
    .handle('cdp.sequence', {
      tab_id: 5,
      steps: [
        {
          method: 'Runtime.evaluate',
          params: { expression: 'held' },
          always: true,
          overlap: true,
        },
        { method: 'Page.stopScreencast', always: true, background: true },
      ],
    })
    .then((x) => {
      done = true;
      return x;
    });
  const sends = () => sentMethods(c.calls);
  for (let i = 0; i < 20 && !sends().includes('Page.stopScreencast'); i++) {
    await new Promise((res) => setImmediate(res));
  }
  assert.deepEqual(sends().slice(-2), [
    'Runtime.evaluate',
    'Page.stopScreencast',
  ]);
  assert.equal(done, false, 'the answer waits for the check');
  answer({ result: { value: 'ok' } });
  assert.deepEqual((await r).results, [
    { result: { result: { value: 'ok' } } },
    { background: true },
  ]);
});

test('cdp.sequence sends a step marked ahead once the next steps are sent', async () => {
  const { c, relay } = setup();
  c.sendHooks.push((t, m) =>
    m === 'Page.captureScreenshot' ? { data: 'aW1n' } : undefined,
  );
  const sends = () => sentMethods(c.calls);
  const parts = [];
  const part = (value) => {
    parts.push({ value, sent: sends() });
    return true;
  };
  const steps = [
    { method: 'Page.captureScreenshot', ahead: true },
    {
      method: 'Runtime.evaluate',
      params: { expression: 'held' },
      overlap: true,
    },
    { method: 'Page.enable', always: true, background: true },
  ];
  const r = await relay.handle('cdp.sequence', { tab_id: 5, steps }, { part });
  assert.deepEqual(r.results, [
    { ahead: true },
    { result: { result: { value: 'held' } } },
    { background: true },
  ]);
  assert.equal(parts.length, 1);
  assert.deepEqual(parts[0].value, { step: 0, result: { data: 'aW1n' } });
  assert.deepEqual(
    parts[0].sent.slice(-3),
    ['Page.captureScreenshot', 'Runtime.evaluate', 'Page.enable'],
    'the image goes once the check and the release are sent',
  );

  // A part that could not go stays in the reply; a failed step sends none.
  const kept = await relay.handle(
    'cdp.sequence',
    { tab_id: 5, steps },
    { part: () => false },
  );
  assert.deepEqual(kept.results[0], { result: { data: 'aW1n' } });
  c.sendHooks.unshift((t, m) => {
    if (m === 'Page.captureScreenshot') throw new Error('no frame');
    return undefined;
  });
  parts.length = 0;
  const failed = await relay.handle(
    'cdp.sequence',
    { tab_id: 5, steps },
    { part },
  );
  assert.equal(parts.length, 0);
  assert.equal(failed.results[0].error.code, 'cdp_error');
  assert.deepEqual(failed.results[1], { skipped: true });

  await assert.rejects(
    relay.handle('cdp.sequence', {
      tab_id: 5,
      steps: [{ method: 'Page.stopScreencast', background: true, ahead: true }],
    }),
    { code: 'bad_request', message: /no result to send ahead/ },
  );
});
