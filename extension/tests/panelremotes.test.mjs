import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RemotesCard, remoteView } from '../panel/remotes.js';
import { fakeDocument } from './panelfakes.mjs';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const devbox = {
  name: 'devbox',
  tools: ['observe', 'interact.click'],
  origins: ['http://localhost:*'],
  expires_at: new Date(T0 + 3 * 3_600_000 + 5 * 60_000).toISOString(),
  connected: 1,
};

test('a remote agent is shown with what it may do, until when', () => {
  assert.deepEqual(remoteView(devbox, T0), {
    name: 'devbox',
    text: 'devbox: observe, interact.click on http://localhost:* — connected (1 session), 3 h 5 min left',
  });
  assert.match(
    remoteView({ ...devbox, connected: 0, expired: true }, T0).text,
    /not connected, expired$/,
  );
});

test('Revoke asks the daemon and shows what is left', async () => {
  const doc = fakeDocument();
  const els = {
    doc,
    list: doc.createElement('ul'),
    empty: doc.createElement('p'),
    error: doc.createElement('p'),
  };
  const calls = [];
  const client = {
    request: async (method, params) => {
      calls.push([method, params]);
      return { remotes: method === 'remotes.list' ? [devbox] : [] };
    },
  };
  const card = new RemotesCard({ client, els, now: () => T0 });
  await card.refresh();
  assert.equal(els.list.children.length, 1);
  assert.equal(els.empty.hidden, true);
  const button = els.list.children[0].children[1];
  assert.equal(button.textContent, 'Revoke');
  await card.revoke('devbox');
  assert.deepEqual(calls[1], ['remotes.revoke', { name: 'devbox' }]);
  assert.equal(els.list.children.length, 0);
  assert.equal(els.empty.hidden, false);
});
