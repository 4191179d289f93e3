import assert from 'node:assert/strict';
import test from 'node:test';

import { DOWN, releaseInterception } from '../lib/interception.js';

test('the interception is switched off in every attached tab, failures aside', async () => {
  const sent = [];
  const dbg = {
    sendCommand: async (target, method) => {
      sent.push([target.tabId, method]);
      if (target.tabId === 2) throw new Error('No tab with given id');
    },
  };
  const logs = [];
  await releaseInterception(dbg, [1, 2, 3], (l) => logs.push(l));
  assert.deepEqual(sent, [
    [1, 'Fetch.disable'],
    [2, 'Fetch.disable'],
    [3, 'Fetch.disable'],
  ]);
  assert.equal(logs.length, 1);
  assert.ok(DOWN.has('daemon_unavailable') && !DOWN.has('ready'));
});
