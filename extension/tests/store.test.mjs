import assert from 'node:assert/strict';
import test from 'node:test';

import { Stored } from '../lib/store.js';
import { logger } from './fakes.mjs';

test('a failing storage area is logged by key, never thrown', async () => {
  const log = logger();
  const area = {
    get: async () => {
      throw new Error('quota');
    },
    set: async () => {
      throw new Error('quota');
    },
  };
  const s = new Stored(area, 'groups', log);
  assert.equal(await s.load(), undefined);
  await s.save([1, 2]);
  assert.deepEqual(log.lines, [
    'reading groups failed: quota',
    'saving groups failed: quota',
  ]);
  assert.equal(await new Stored(undefined, 'x').load(), undefined);
});
