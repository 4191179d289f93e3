import assert from 'node:assert/strict';
import test from 'node:test';

import { SCRIPTS, packageFile } from '../lib/inject.js';
import { Relay } from '../lib/relay.js';
import { SELF_ID, fakeChrome } from './fakechrome.mjs';
import { FakeTimers, logger } from './fakes.mjs';

/** A relay whose package holds files (path -> text). */
function setup(files) {
  const c = fakeChrome();
  c.addTab({ id: 5, url: 'http://a/', title: 'A', active: true });
  const reads = [];
  const loadFile = async (path) => {
    reads.push(path);
    if (!(path in files)) throw new Error(`${path}: HTTP 404`);
    return files[path];
  };
  const relay = new Relay({
    ...c,
    selfId: SELF_ID,
    notify: () => true,
    timers: new FakeTimers(),
    log: logger(),
    loadFile,
  });
  const evals = [];
  c.sendHooks.push((target, method, params) => {
    if (method !== 'Runtime.evaluate' || params.contextId === undefined) return;
    evals.push({ target, params });
    if (params.expression.includes('throw')) {
      return {
        result: { type: 'object' },
        exceptionDetails: {
          text: 'Uncaught',
          exception: { description: 'Error: boom\n    at <anonymous>:1:7' },
        },
      };
    }
    return { result: { type: 'undefined' } };
  });
  return { c, relay, reads, evals };
}

const inject = (extra = {}) => ({
  tab_id: 5,
  context_id: 3,
  script: 'axe',
  ...extra,
});

test('cdp.inject runs the vendored file in the given context, read once', async () => {
  const { relay, reads, evals } = setup({ [SCRIPTS.axe]: 'window.axe = {}' });
  const got = await relay.handle('cdp.inject', inject());
  assert.deepEqual(got, { script: 'axe', bytes: 15 });
  await relay.handle('cdp.inject', inject({ context_id: 9, session_id: 'S' }));
  assert.deepEqual(reads, ['vendor/axe/axe.min.js']);
  assert.deepEqual(
    evals.map((e) => [e.target, e.params.contextId, e.params.expression]),
    [
      [{ tabId: 5 }, 3, 'window.axe = {}'],
      [{ tabId: 5, sessionId: 'S' }, 9, 'window.axe = {}'],
    ],
  );
  assert.equal(evals[0].params.silent, true);
});

test('cdp.inject runs only the files it lists', async () => {
  const { relay, reads } = setup({ 'sw.js': 'x' });
  for (const script of ['sw.js', '../sw.js', 'constructor', '']) {
    await assert.rejects(relay.handle('cdp.inject', inject({ script })), {
      code: 'bad_request',
    });
  }
  await assert.rejects(relay.handle('cdp.inject', inject({ context_id: 0 })), {
    code: 'bad_request',
  });
  assert.deepEqual(reads, []);
});

test('a missing vendored file is unavailable, and read again next time', async () => {
  const files = {};
  const { relay, reads } = setup(files);
  await assert.rejects(relay.handle('cdp.inject', inject()), (err) => {
    assert.equal(err.code, 'unavailable');
    assert.match(err.message, /make vendor/);
    return true;
  });
  files[SCRIPTS.axe] = 'ok()';
  assert.deepEqual(await relay.handle('cdp.inject', inject()), {
    script: 'axe',
    bytes: 4,
  });
  assert.equal(reads.length, 2);
});

test('a file that throws is a cdp_error naming the exception', async () => {
  const { relay } = setup({ [SCRIPTS.axe]: 'throw new Error("boom")' });
  await assert.rejects(relay.handle('cdp.inject', inject()), (err) => {
    assert.equal(err.code, 'cdp_error');
    assert.equal(err.message, 'axe threw: Error: boom');
    return true;
  });
});

test('packageFile reads through chrome.runtime.getURL and refuses errors', async () => {
  const runtime = { getURL: (p) => `chrome-extension://id/${p}` };
  const fetchFn = async (url) =>
    url.endsWith('ok.js')
      ? { ok: true, status: 200, text: async () => 'text' }
      : { ok: false, status: 404, text: async () => '' };
  const read = packageFile(runtime, fetchFn);
  assert.equal(await read('vendor/ok.js'), 'text');
  await assert.rejects(read('vendor/missing.js'), /HTTP 404/);
});
