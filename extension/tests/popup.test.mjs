import assert from 'node:assert/strict';
import test from 'node:test';

import { setup } from './harness.mjs';

test('a tab opened by a tab of ours is reported with its opener and followed', async () => {
  const { c, relay, sent } = setup();
  await relay.handle('tabs.group', { tab_ids: [5], title: 'G' });
  const popup = c.open(5);
  assert.deepEqual(sent('tabs.opened'), [
    { tab_id: popup, opener_tab_id: 5, url: 'http://a/popup' },
  ]);
  const group = c.tabsMap.get(5).groupId;
  const born = c.open(c.addTab({ active: true }), { groupId: group });
  assert.deepEqual(
    sent('tabs.opened').at(-1),
    {
      tab_id: born,
      url: 'http://a/popup',
      group_id: group,
    },
    'a tab born in our group is ours, whatever opener Chrome names',
  );
  c.update(popup, { url: 'http://a/doc', status: 'complete' });
  assert.deepEqual(sent('tabs.updated').at(-1), {
    tab_id: popup,
    url: 'http://a/doc',
    status: 'complete',
  });
});

test("a tab opened by the user's other tabs is never reported", async () => {
  const { c, sent } = setup();
  const users = c.addTab({ url: 'http://u/' });
  const popup = c.open(users);
  c.open(undefined, { openerTabId: undefined });
  c.update(popup, { url: 'http://u/next' });
  assert.deepEqual(sent('tabs.opened'), []);
  assert.deepEqual(sent('tabs.updated'), []);
});
