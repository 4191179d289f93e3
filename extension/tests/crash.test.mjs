import assert from 'node:assert/strict';
import test from 'node:test';

import { SEND_TIMEOUT_DEFAULT_MS } from '../lib/inflight.js';
import { flush } from './fakes.mjs';
import { evaluate, setup } from './harness.mjs';

/** Commands whose expression is "hang" never get an answer. */
function hangs(c) {
  c.sendHooks.push((t, m, p) =>
    p?.expression === 'hang' ? new Promise(() => {}) : undefined,
  );
}

async function settle() {
  for (let i = 0; i < 5; i++) await flush();
}

test('a command with no answer times out and frees the tab', async () => {
  const { c, relay, timers } = setup();
  hangs(c);
  const p = relay.handle('cdp.send', evaluate(5, 'hang'));
  await settle();
  assert.deepEqual(timers.waiting, [SEND_TIMEOUT_DEFAULT_MS]);
  timers.advance(SEND_TIMEOUT_DEFAULT_MS);
  await assert.rejects(p, {
    code: 'timeout',
    retryable: false,
    message: /Runtime\.evaluate on tab 5 got no answer within 120000 ms/,
  });
  assert.equal(relay.idle.armed().includes(5), true, 'idle clock runs again');
  const q = relay.handle('cdp.send', evaluate(5, 'hang', { timeout_ms: 50 }));
  await settle();
  timers.advance(50);
  await assert.rejects(q, { code: 'timeout' });
});

test('a crash fails the commands in flight and new ones until reload', async () => {
  const { c, relay } = setup();
  hangs(c);
  const p = relay.handle('cdp.send', evaluate(5, 'hang'));
  await settle();
  c.debugger.onEvent.emit({ tabId: 5 }, 'Inspector.targetCrashed', {});
  await assert.rejects(p, (err) => {
    assert.equal(err.code, 'tab_unloaded');
    assert.match(err.message, /the page in tab 5 crashed; it must be reloaded/);
    assert.equal(err.toJSON().tab_id, 5); // the daemon's advice names the tab
    return true;
  });
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'tab_unloaded',
  });
  // a reload goes through, and the page works again once it reloads
  await assert.rejects(
    relay.handle('cdp.send', { tab_id: 5, method: 'Page.enable' }),
    { code: 'tab_unloaded' },
  );
  c.sendHooks.push((t, m) => (m === 'Page.reload' ? {} : undefined));
  assert.deepEqual(
    await relay.handle('cdp.send', { tab_id: 5, method: 'Page.reload' }),
    {},
  );
  c.debugger.onEvent.emit(
    { tabId: 5 },
    'Inspector.targetReloadedAfterCrash',
    {},
  );
  assert.equal(
    (await relay.handle('cdp.send', evaluate(5, 'ok'))).result.value,
    'ok',
  );
});

test('tabs.reload or a new load also ends the crashed state', async () => {
  const { c, relay } = setup();
  c.debugger.onEvent.emit({ tabId: 5 }, 'Inspector.targetCrashed', {});
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'tab_unloaded',
  });
  const { tab } = await relay.handle('tabs.reload', { tab_id: 5 });
  assert.equal(tab.id, 5);
  assert.equal(
    (await relay.handle('cdp.send', evaluate(5, 'ok'))).result.value,
    'ok',
  );
});

test('a crashed child session fails only its own commands', async () => {
  const { c, relay } = setup();
  hangs(c);
  const child = relay.handle(
    'cdp.send',
    evaluate(5, 'hang', { session_id: 'S1' }),
  );
  const root = relay.handle(
    'cdp.send',
    evaluate(5, 'hang', { timeout_ms: 10 }),
  );
  await settle();
  c.debugger.onEvent.emit(
    { tabId: 5, sessionId: 'S1' },
    'Inspector.targetCrashed',
    {},
  );
  await assert.rejects(child, {
    code: 'tab_unloaded',
    message: /a frame or worker in tab 5 crashed/,
  });
  assert.equal(
    (await relay.handle('cdp.send', evaluate(5, 'ok'))).result.value,
    'ok',
  );
  root.catch(() => {});
});

test("Chrome's Target crashed text maps to tab_unloaded", async () => {
  const { c, relay } = setup();
  c.sendHooks.push(() => {
    throw new Error('{"code":-32000,"message":"Target crashed"}');
  });
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'tab_unloaded',
    message: /tab 5 crashed/,
  });
});

test('a discarded tab: tabs.replaced, old id names the new one, no hang', async () => {
  const { c, relay, sent } = setup();
  await relay.handle('tabs.group', { tab_ids: [5], title: 'G' });
  await relay.handle('cdp.send', evaluate(5));
  const added = c.discard(5);
  assert.deepEqual(sent('tabs.replaced'), [
    { tab_id: added, replaced_tab_id: 5 },
  ]);
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), (err) => {
    assert.equal(err.code, 'tab_closed');
    assert.match(err.message, new RegExp(`replaced by tab ${added}`));
    assert.equal(err.toJSON().replaced_by, added);
    return true;
  });
  await assert.rejects(relay.handle('cdp.send', evaluate(added)), {
    code: 'tab_unloaded',
    message: new RegExp(`tab ${added} is discarded`),
  });
  const { tab } = await relay.handle('tabs.reload', { tab_id: added });
  assert.equal(tab.id, added);
  assert.equal(
    (await relay.handle('cdp.send', evaluate(added, 'ok'))).result.value,
    'ok',
  );
  // the replacement is still ours: known and in our group
  c.update(added, { groupId: -1 });
  assert.deepEqual(sent('tabs.ungrouped'), [{ tab_id: added, group_id: 1 }]);
});

test("the user's cancel follows a discarded tab to its new id", async () => {
  const { c, relay } = setup();
  await relay.handle('cdp.send', evaluate(5));
  c.detach(5, 'canceled_by_user');
  const added = c.discard(5);
  c.tabsMap.get(added).discarded = false;
  await assert.rejects(relay.handle('cdp.send', evaluate(added)), {
    code: 'canceled_by_user',
  });
});
