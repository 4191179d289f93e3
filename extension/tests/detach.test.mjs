import assert from 'node:assert/strict';
import test from 'node:test';

import { IDLE_DETACH_DEFAULT_MS } from '../lib/idle.js';
import { Relay } from '../lib/relay.js';
import { SELF_ID, count } from './fakechrome.mjs';
import { FakeTimers, flush } from './fakes.mjs';
import { evaluate, setup } from './harness.mjs';

/** Makes the next command fail as if Chrome detached tabId mid-command. */
function detachDuringNext(c, tabId, reason) {
  let armed = true;
  c.sendHooks.push((t, m) => {
    if (!armed || m !== 'Runtime.evaluate') return undefined;
    armed = false;
    c.detach(tabId, reason);
    throw new Error('Detached while handling command.');
  });
}

test('canceled_by_user refuses the tab until cdp.attach force', async () => {
  const { c, relay, sent } = setup();
  await relay.handle('cdp.send', evaluate(5));
  c.detach(5, 'canceled_by_user');
  assert.deepEqual(sent('cdp.detached'), [
    { tab_id: 5, reason: 'canceled_by_user' },
  ]);
  const refused = {
    code: 'canceled_by_user',
    message:
      "the user closed Gasoline's debugging bar on tab 5; ask the user " +
      'before acting on this tab again',
    retryable: false,
  };
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), refused);
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), refused);
  await assert.rejects(relay.handle('cdp.attach', { tab_id: 5 }), refused);
  assert.equal(count(c.calls, 'attach'), 1, 'never re-attached silently');
  assert.deepEqual(
    await relay.handle('cdp.attach', { tab_id: 5, force: true }),
    {},
  );
  assert.equal(count(c.calls, 'attach'), 2);
  assert.equal(
    (await relay.handle('cdp.send', evaluate(5, 'ok'))).result.value,
    'ok',
  );
});

test('a cancel during a command fails it with canceled_by_user', async () => {
  const { c, relay } = setup();
  await relay.handle('cdp.send', evaluate(5));
  detachDuringNext(c, 5, 'canceled_by_user');
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'canceled_by_user',
  });
});

test('the cancel survives a worker restart, and ends when the tab closes', async () => {
  const { c, relay } = setup();
  await relay.handle('cdp.send', evaluate(5));
  c.detach(5, 'canceled_by_user');
  await flush();
  const again = new Relay({ ...c, selfId: SELF_ID, timers: new FakeTimers() });
  await assert.rejects(again.handle('cdp.send', evaluate(5)), {
    code: 'canceled_by_user',
  });
  c.close(5);
  relay.removed(5);
  await flush();
  assert.deepEqual(c.storage.session.data.canceled_tabs, []);
});

test('target_closed re-attaches once on the next command', async () => {
  const { c, relay, sent } = setup();
  await relay.handle('cdp.send', evaluate(5));
  c.detach(5, 'target_closed');
  assert.deepEqual(sent('cdp.detached'), [
    { tab_id: 5, reason: 'target_closed' },
  ]);
  assert.equal(
    (await relay.handle('cdp.send', evaluate(5, 'x'))).result.value,
    'x',
  );
  assert.equal(count(c.calls, 'attach'), 2);
  assert.equal(sent('cdp.attached').length, 2);
});

test('target_closed again within the re-attaching command is tab_closed', async () => {
  const { c, relay } = setup();
  await relay.handle('cdp.send', evaluate(5));
  c.detach(5, 'target_closed');
  detachDuringNext(c, 5, 'target_closed');
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'tab_closed',
    message: /target_closed twice in one command/,
  });
});

test('a first target_closed during a command is detached, then re-attaches', async () => {
  const { c, relay } = setup();
  await relay.handle('cdp.send', evaluate(5));
  detachDuringNext(c, 5, 'target_closed');
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'detached',
    message: /re-attaches once/,
  });
  assert.equal(
    (await relay.handle('cdp.send', evaluate(5, 'y'))).result.value,
    'y',
  );
});

test('target_closed on a tab that is gone is tab_closed, without attaching', async () => {
  const { c, relay } = setup();
  await relay.handle('cdp.send', evaluate(5));
  c.detach(5, 'target_closed');
  c.tabsMap.delete(5);
  await assert.rejects(relay.handle('cdp.send', evaluate(5)), {
    code: 'tab_closed',
    message: /tab 5 does not exist/,
  });
  assert.equal(count(c.calls, 'attach'), 1);
});

test('idle tabs are detached after idle_detach_ms, with cdp.detached idle', async () => {
  const { c, relay, timers, sent } = setup();
  await relay.handle('cdp.send', evaluate(5));
  assert.deepEqual(timers.waiting, [IDLE_DETACH_DEFAULT_MS]);
  timers.advance(IDLE_DETACH_DEFAULT_MS - 1);
  await relay.handle('cdp.send', evaluate(5)); // restarts the clock
  timers.advance(IDLE_DETACH_DEFAULT_MS - 1);
  await flush();
  assert.equal(c.attached.has(5), true);
  timers.advance(1);
  await flush();
  assert.equal(c.attached.has(5), false);
  assert.deepEqual(sent('cdp.detached'), [{ tab_id: 5, reason: 'idle' }]);
  assert.deepEqual(timers.waiting, []);
  await relay.handle('cdp.send', evaluate(5)); // attaches again
  assert.equal(count(c.calls, 'attach'), 2);
});

test('a command in flight keeps its tab attached', async () => {
  const { c, relay, timers } = setup();
  await relay.handle('config.set', { idle_detach_ms: 1000 });
  await relay.handle('cdp.send', evaluate(5));
  let release;
  c.sendHooks.push((t, m, p) =>
    p?.expression === 'slow' ? new Promise((r) => (release = r)) : undefined,
  );
  const slow = relay.handle('cdp.send', evaluate(5, 'slow'));
  await flush();
  await flush();
  timers.advance(5000);
  await flush();
  assert.equal(c.attached.has(5), true);
  release({ result: { value: 'done' } });
  assert.equal((await slow).result.value, 'done');
  assert.deepEqual(timers.waiting, [1000]);
  timers.advance(1000);
  await flush();
  assert.equal(c.attached.has(5), false);
});

test('config.set changes and persists idle_detach_ms', async () => {
  const { c, relay, timers } = setup();
  await relay.handle('cdp.send', evaluate(5));
  assert.deepEqual(await relay.handle('config.set', {}), {
    idle_detach_ms: IDLE_DETACH_DEFAULT_MS,
  });
  assert.deepEqual(await relay.handle('config.set', { idle_detach_ms: 2000 }), {
    idle_detach_ms: 2000,
  });
  assert.deepEqual(timers.waiting, [2000], 'the running clock restarts');
  assert.deepEqual(c.storage.local.data.config, { idle_detach_ms: 2000 });
  const again = new Relay({ ...c, selfId: SELF_ID, timers: new FakeTimers() });
  assert.deepEqual(await again.handle('config.set', {}), {
    idle_detach_ms: 2000,
  });
});

test('cdp.detach_all detaches every tab; no idle event for it', async () => {
  const { c, relay, timers, sent } = setup();
  const six = c.addTab({ url: 'http://b/' });
  await relay.handle('cdp.send', evaluate(5));
  await relay.handle('cdp.send', evaluate(six));
  assert.deepEqual(await relay.handle('cdp.detach_all', {}), {
    tab_ids: [5, six],
  });
  assert.equal(c.attached.size, 0);
  assert.deepEqual(timers.waiting, []);
  assert.deepEqual(sent('cdp.detached'), []);
  assert.deepEqual(await relay.handle('cdp.detach_all', {}), { tab_ids: [] });
});

test('a new worker detaches tabs a previous one left attached', async () => {
  const { c } = setup();
  c.attached.add(5);
  const relay = new Relay({ ...c, selfId: SELF_ID, timers: new FakeTimers() });
  await relay.start();
  assert.equal(c.attached.has(5), false);
});

test('a closed tab forgets its attachment and idle clock', async () => {
  const { c, relay, timers, sent } = setup();
  await relay.handle('cdp.send', evaluate(5));
  c.close(5);
  assert.deepEqual(timers.waiting, []);
  assert.equal(relay.attachments.has(5), false);
  assert.deepEqual(sent('tabs.removed'), [{ tab_id: 5 }]);
});

test('cdp.attach attaches now and starts the idle clock', async () => {
  const { c, relay, timers, sent } = setup();
  assert.deepEqual(await relay.handle('cdp.attach', { tab_id: 5 }), {});
  assert.equal(c.attached.has(5), true);
  assert.deepEqual(sent('cdp.attached'), [{ tab_id: 5 }]);
  assert.deepEqual(timers.waiting, [IDLE_DETACH_DEFAULT_MS]);
  await assert.rejects(relay.handle('cdp.attach', { tab_id: 99 }), {
    code: 'tab_closed',
  });
});
