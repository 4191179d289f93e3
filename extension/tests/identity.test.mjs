import assert from 'node:assert/strict';
import test from 'node:test';

import {
  BROWSER_ID_KEY,
  PROFILE_KEY,
  RUN_ID_KEY,
  cleanProfile,
  loadIdentity,
} from '../lib/identity.js';
import { fakeChrome } from './fakechrome.mjs';

test('the browser id is made once per profile; the run id once per run', async () => {
  const c = fakeChrome();
  let n = 0;
  const newId = () => `0000000000000000000${++n}`.slice(-20);
  const first = await loadIdentity(c.storage, newId);
  assert.deepEqual(first, {
    browser_id: '00000000000000000001',
    run_id: '00000000000000000002',
    profile: '',
  });
  // the worker restarts: both stay
  assert.deepEqual(await loadIdentity(c.storage, newId), first);
  // the browser restarts (storage.session is gone): a new run, same profile
  c.storage.session.data = {};
  c.storage.local.data[PROFILE_KEY] = '  Work\nprofile  ';
  const again = await loadIdentity(c.storage, newId);
  assert.equal(again.browser_id, first.browser_id);
  assert.notEqual(again.run_id, first.run_id);
  assert.equal(again.profile, 'Work profile');
  // a damaged id is replaced
  c.storage.local.data[BROWSER_ID_KEY] = 'x';
  c.storage.session.data[RUN_ID_KEY] = 7;
  const fixed = await loadIdentity(c.storage, newId);
  assert.match(fixed.browser_id, /^0+\d+$/);
  assert.notEqual(fixed.browser_id, first.browser_id);
});

test('cleanProfile: one line, bounded', () => {
  assert.equal(cleanProfile(undefined), '');
  assert.equal(cleanProfile(' a \t b '), 'a b');
  assert.equal(cleanProfile('x'.repeat(100)).length, 40);
});
