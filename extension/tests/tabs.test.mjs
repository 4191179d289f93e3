import assert from 'node:assert/strict';
import test from 'node:test';

import { Relay } from '../lib/relay.js';
import { LOAD_TIMEOUT_DEFAULT_MS } from '../lib/tabs.js';
import { flush } from './fakes.mjs';
import { setup } from './harness.mjs';

const A = {
  id: 5,
  url: 'http://a/',
  title: 'A',
  active: true,
  window_id: 1,
  status: 'complete',
  group_id: -1,
};

test('tabs.query, tabs.get, tabs.close', async () => {
  const { c, relay } = setup();
  assert.deepEqual(await relay.handle('tabs.query', { url: 'http://a/*' }), {
    tabs: [A],
  });
  assert.deepEqual(c.calls[0], ['tabs.query', { url: 'http://a/*' }]);
  assert.deepEqual(await relay.handle('tabs.get', { tab_id: 5 }), { tab: A });
  assert.deepEqual(await relay.handle('tabs.close', { tab_id: 5 }), {});
  await assert.rejects(relay.handle('tabs.get', { tab_id: 5 }), {
    code: 'tab_closed',
  });
  await assert.rejects(relay.handle('tabs.close', { tab_id: 5 }), {
    code: 'tab_closed',
  });
});

test('tabs.create opens a background tab', async () => {
  const { c, relay } = setup();
  const { tab } = await relay.handle('tabs.create', { url: 'http://b/' });
  assert.deepEqual(c.calls.at(-1), [
    'tabs.create',
    { url: 'http://b/', active: false },
  ]);
  assert.deepEqual(tab, {
    id: 6,
    url: 'http://b/',
    title: '',
    active: false,
    window_id: 1,
    status: 'loading',
    group_id: -1,
  });
  const before = c.calls.length;
  for (const url of [
    'devtools://x',
    'file:///etc/passwd',
    'data:text/html,x',
  ]) {
    await assert.rejects(relay.handle('tabs.create', { url }), {
      code: 'restricted_page',
    });
  }
  assert.equal(c.calls.length, before, 'Chrome was never asked');
});

test('tabs.activate', async () => {
  const { c, relay } = setup();
  const six = c.addTab();
  const { tab } = await relay.handle('tabs.activate', { tab_id: six });
  assert.equal(tab.active, true);
  assert.deepEqual(c.calls.at(-1), ['tabs.update', six, { active: true }]);
  await assert.rejects(relay.handle('tabs.activate', { tab_id: 99 }), {
    code: 'tab_closed',
  });
});

test('tabs.create wait_until load resolves when the tab completes', async () => {
  const { c, relay } = setup();
  const p = relay.handle('tabs.create', {
    url: 'http://b/',
    wait_until: 'load',
  });
  await flush();
  await flush();
  c.update(6, { status: 'loading', url: 'http://b/' });
  c.update(6, { title: 'B' });
  c.update(6, { status: 'complete' });
  const { tab } = await p;
  assert.equal(tab.status, 'complete');
  assert.equal(tab.title, 'B');
});

test('tabs.create wait_until load: already complete, timeout, closed', async () => {
  {
    const { c, relay } = setup();
    const create = c.tabs.create;
    c.tabs.create = async (o) => {
      const t = await create(o);
      c.tabsMap.get(t.id).status = 'complete'; // finished before we looked
      return t;
    };
    const { tab } = await relay.handle('tabs.create', {
      url: 'http://b/',
      wait_until: 'load',
    });
    assert.equal(tab.status, 'complete');
  }
  {
    const { relay, timers } = setup();
    const p = relay.handle('tabs.create', {
      url: 'http://b/',
      wait_until: 'load',
    });
    await flush();
    await flush();
    assert.deepEqual(timers.waiting, [LOAD_TIMEOUT_DEFAULT_MS]);
    timers.advance(LOAD_TIMEOUT_DEFAULT_MS);
    await assert.rejects(p, (err) => {
      assert.deepEqual(err.toJSON(), {
        tab_id: 6,
        code: 'timeout',
        message:
          'tab 6 did not finish loading within 15000 ms; it stays open as ' +
          'tab 6: use it, wait for it or close it',
        retryable: false,
      });
      return true;
    });
  }
  {
    const { c, relay, timers } = setup();
    const p = relay.handle('tabs.create', {
      url: 'http://b/',
      wait_until: 'load',
      timeout_ms: 60_000,
    });
    await flush();
    await flush();
    assert.deepEqual(timers.waiting, [60_000]);
    c.close(6);
    await assert.rejects(p, { code: 'tab_closed' });
    assert.deepEqual(timers.waiting, []);
  }
});

test('tabs.group creates a titled group in the first tab’s window, then reuses it', async () => {
  const { c, relay, sent } = setup();
  const six = c.addTab({ windowId: 2 });
  const r = await relay.handle('tabs.group', {
    tab_ids: [six, 5],
    title: 'Gasoline · claude',
    color: 'cyan',
  });
  assert.deepEqual(r, { group_id: 1 });
  assert.deepEqual(
    c.calls.find((x) => x[0] === 'tabs.group'),
    ['tabs.group', { tabIds: [six, 5], createProperties: { windowId: 2 } }],
  );
  assert.deepEqual(c.groupsMap.get(1), {
    id: 1,
    windowId: 2,
    title: 'Gasoline · claude',
    color: 'cyan',
  });
  const seven = c.addTab();
  assert.deepEqual(
    await relay.handle('tabs.group', { tab_ids: [seven], group_id: 1 }),
    {
      group_id: 1,
    },
  );
  assert.equal(c.tabsMap.get(seven).groupId, 1);
  assert.equal(c.calls.filter((x) => x[0] === 'tabGroups.update').length, 1);
  assert.deepEqual(sent('tabs.ungrouped'), []);
  // a group_id that no longer exists makes a new group
  const r2 = await relay.handle('tabs.group', {
    tab_ids: [seven],
    group_id: 42,
  });
  assert.deepEqual(r2, { group_id: 2 });
  assert.deepEqual(c.groupsMap.get(2).title, 'Gasoline');
  assert.deepEqual(sent('tabs.ungrouped'), [], 'our own move is not reported');
});

test('tabs.ungrouped when the user drags a tab out of our group', async () => {
  const { c, relay, sent } = setup();
  const six = c.addTab();
  const mine = c.addTab();
  await relay.handle('tabs.group', { tab_ids: [5, six], title: 'G' });
  c.update(six, { groupId: -1 }); // dragged out
  assert.deepEqual(sent('tabs.ungrouped'), [{ tab_id: six, group_id: 1 }]);
  await relay.handle('tabs.ungroup', { tab_ids: [5] }); // ours: no event
  assert.deepEqual(sent('tabs.ungrouped').length, 1);
  // a group the user made is none of our business
  c.groupsMap.set(9, { id: 9 });
  c.update(mine, { groupId: 9 });
  c.update(mine, { groupId: -1 });
  assert.deepEqual(sent('tabs.ungrouped').length, 1);
});

test('tabs.create with group_id joins the group', async () => {
  const { c, relay, sent } = setup();
  await relay.handle('tabs.group', { tab_ids: [5], title: 'G' });
  const { tab } = await relay.handle('tabs.create', {
    url: 'http://b/',
    group_id: 1,
  });
  assert.equal(tab.group_id, 1);
  assert.equal(c.tabsMap.get(tab.id).groupId, 1);
  c.update(tab.id, { groupId: -1 });
  assert.deepEqual(sent('tabs.ungrouped'), [{ tab_id: tab.id, group_id: 1 }]);
  await assert.rejects(
    relay.handle('tabs.create', { url: 'http://c/', group_id: 77 }),
    {
      code: 'bad_request',
      message: /group 77 does not exist/,
    },
  );
});

test('tabs.create with group_id closes the tab if grouping fails', async () => {
  const { c, relay } = setup();
  await relay.handle('tabs.group', { tab_ids: [5], title: 'G' });
  c.tabs.group = async () => {
    throw new Error(
      'Tabs cannot be edited right now (user may be dragging a tab).',
    );
  };
  await assert.rejects(
    relay.handle('tabs.create', { url: 'http://b/', group_id: 1 }),
    {
      code: 'cdp_error',
    },
  );
  assert.deepEqual(c.calls.at(-1), ['tabs.remove', 6]);
});

test('tabs.updated: known tabs only, changed fields only', async () => {
  const { c, relay, sent } = setup();
  const stranger = c.addTab();
  c.update(5, { title: 'not yet known' });
  c.update(stranger, { url: 'http://secret/' });
  assert.deepEqual(sent('tabs.updated'), []);
  await relay.handle('cdp.send', { tab_id: 5, method: 'Page.enable' });
  c.update(5, { status: 'loading', url: 'http://a/2' });
  c.update(5, { title: 'A2', favIconUrl: 'x', audible: true });
  c.update(5, { favIconUrl: 'y' });
  const { tab } = await relay.handle('tabs.create', { url: 'http://b/' });
  c.update(tab.id, { status: 'complete' });
  await relay.handle('tabs.group', { tab_ids: [5], title: 'G' });
  assert.deepEqual(sent('tabs.updated'), [
    { tab_id: 5, status: 'loading', url: 'http://a/2' },
    { tab_id: 5, title: 'A2' },
    { tab_id: tab.id, status: 'complete' },
    { tab_id: 5, group_id: 1 },
  ]);
  c.close(5);
  c.addTab({ id: 5 });
  c.update(5, { title: 'reused id?' });
  assert.equal(sent('tabs.updated').length, 4, 'a closed tab is forgotten');
});

test('our groups survive a worker restart', async () => {
  const { c, relay } = setup();
  await relay.handle('tabs.group', { tab_ids: [5], title: 'G' });
  await flush();
  assert.deepEqual(c.storage.session.data.groups, [1]);
  const events = [];
  const again = new Relay({
    ...c,
    notify: (m, p) => events.push([m, p]),
  });
  await again.start();
  again.watch.updated(5, { groupId: -1 });
  assert.deepEqual(events, [
    ['tabs.ungrouped', { tab_id: 5, group_id: 1 }],
    ['tabs.updated', { tab_id: 5, group_id: -1 }],
  ]);
});

test('tabs.grouped when the user moves a tab into our group', async () => {
  const { c, relay, sent } = setup();
  const users = c.addTab();
  const other = c.addTab();
  await relay.handle('tabs.group', { tab_ids: [5], title: 'G' });
  c.update(users, { groupId: 1 }); // dragged in, or "Add tab to group"
  assert.deepEqual(sent('tabs.grouped'), [{ tab_id: users, group_id: 1 }]);
  c.update(users, { title: 'now known' });
  assert.deepEqual(sent('tabs.updated').at(-1), {
    tab_id: users,
    title: 'now known',
  });
  // moved on to another of our groups: left one, joined the other
  await relay.handle('tabs.group', { tab_ids: [other], title: 'H' });
  c.update(users, { groupId: 2 });
  assert.deepEqual(sent('tabs.ungrouped').at(-1), {
    tab_id: users,
    group_id: 1,
  });
  assert.deepEqual(sent('tabs.grouped').at(-1), { tab_id: users, group_id: 2 });
  // the relay's own moves are not reported; a group of the user's is none
  // of our business
  await relay.handle('tabs.group', { tab_ids: [users], group_id: 1 });
  c.groupsMap.set(9, { id: 9 });
  c.update(other, { groupId: 9 });
  assert.equal(sent('tabs.grouped').length, 2);
});
