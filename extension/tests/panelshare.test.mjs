import assert from 'node:assert/strict';
import test from 'node:test';

import { describeTab } from '../panel/share.js';

test('the share card says what the tab is to the agents', () => {
  assert.equal(describeTab(null).mode, 'none');
  const sessions = [{ session: 's_1', client: 'claude-code' }];
  assert.equal(describeTab({ tab_id: 5, sessions: [] }).mode, 'alone');
  assert.equal(describeTab({ tab_id: 5, sessions }).mode, 'offer');
  const shared = describeTab({
    tab_id: 5,
    sessions,
    shared_with: sessions[0],
  });
  assert.equal(shared.mode, 'shared');
  assert.match(shared.text, /^Shared with claude-code\./);
  assert.match(shared.text, /Stop sharing/);
  const opened = describeTab({ tab_id: 5, sessions, opened_by: sessions[0] });
  assert.equal(opened.mode, 'opened');
  assert.match(opened.text, /claude-code opened this tab/);
});
