import assert from 'node:assert/strict';
import test from 'node:test';

import {
  DownloadGuard,
  KEEP_MS,
  WAIT_MS,
  wireDownloads,
} from '../lib/downloads.js';
import { FakeEvent, FakeTimers } from './fakes.mjs';

function setup({ attached = [7] } = {}) {
  const calls = [];
  const timers = new FakeTimers();
  const downloads = {
    cancel: async (id) => calls.push(['cancel', id]),
    erase: async (q) => calls.push(['erase', q.id]),
  };
  const guard = new DownloadGuard({
    downloads,
    attached: () => attached,
    timers,
    now: () => timers.now,
  });
  const suggested = [];
  const determine = (item) =>
    guard.determining(item, (s) => suggested.push([item.id, s]));
  return { guard, calls, timers, suggested, determine };
}

const settle = () => new Promise((r) => setImmediate(r));

test('a download an attached tab announced is cancelled, never named', async () => {
  const { guard, calls, suggested, determine } = setup();
  guard.event({ tabId: 7 }, 'Page.downloadWillBegin', {
    url: 'blob:http://a/1',
  });
  assert.equal(determine({ id: 3, url: 'blob:http://a/1' }), undefined);
  await settle();
  assert.deepEqual(calls, [
    ['cancel', 3],
    ['erase', 3],
  ]);
  assert.deepEqual(suggested, []);
});

test('the announcement may come after the question', async () => {
  const { guard, calls, suggested, determine, timers } = setup();
  assert.equal(determine({ id: 4, url: 'http://a/x.zip' }), true);
  timers.advance(WAIT_MS - 1);
  guard.event({ tabId: 7 }, 'Page.downloadWillBegin', {
    url: 'http://a/x.zip',
  });
  await settle();
  assert.deepEqual(calls, [
    ['cancel', 4],
    ['erase', 4],
  ]);
  assert.deepEqual(suggested, []);
});

test("another tab's download is the user's: named unchanged", async () => {
  const { calls, suggested, determine, timers } = setup();
  assert.equal(determine({ id: 5, url: 'http://b/y.pdf' }), true);
  timers.advance(WAIT_MS);
  await settle();
  assert.deepEqual(suggested, [[5, undefined]]);
  assert.deepEqual(calls, []);
});

test('with no tab attached the user is not kept waiting', () => {
  const { suggested, determine } = setup({ attached: [] });
  assert.equal(determine({ id: 6, url: 'http://b/z' }), undefined);
  assert.deepEqual(suggested, [[6, undefined]]);
});

test('child sessions, other events and stale announcements are ignored', async () => {
  const { guard, suggested, determine, timers } = setup();
  guard.event({ tabId: 7, sessionId: 'S' }, 'Page.downloadWillBegin', {
    url: 'u1',
  });
  guard.event({ tabId: 7 }, 'Page.frameNavigated', { url: 'u2' });
  guard.event({ tabId: 7 }, 'Page.downloadWillBegin', { url: 'u3' });
  timers.advance(KEEP_MS + 1);
  guard.event({ tabId: 7 }, 'Page.downloadWillBegin', { url: 'u4' }); // prunes u3
  for (const [id, url] of [
    [1, 'u1'],
    [2, 'u2'],
    [3, 'u3'],
  ])
    determine({ id, url });
  timers.advance(WAIT_MS);
  await settle();
  assert.deepEqual(suggested.map((s) => s[0]).sort(), [1, 2, 3]);
});

test('wireDownloads registers both listeners when the API is there', () => {
  const api = {
    debugger: { onEvent: new FakeEvent() },
    downloads: { onDeterminingFilename: new FakeEvent() },
  };
  const { guard } = setup();
  wireDownloads(api, guard);
  assert.equal(api.debugger.onEvent.listeners.size, 1);
  assert.equal(api.downloads.onDeterminingFilename.listeners.size, 1);
  wireDownloads({ debugger: { onEvent: new FakeEvent() } }, guard); // no downloads permission: nothing
});
