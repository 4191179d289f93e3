import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { navigationRefused, restrictedReason } from '../lib/restricted.js';
import { SELF_ID } from './fakechrome.mjs';

// The daemon's one definition of where an agent may go
// (internal/scheme/testdata/cases.json): the extension refuses the same
// pages.
const shared = JSON.parse(
  readFileSync(
    new URL('../../internal/scheme/testdata/cases.json', import.meta.url),
    'utf8',
  ),
);

test('mirrors the daemon: the same pages are off-limits', () => {
  for (const c of shared.cases) {
    const why = restrictedReason(c.url);
    assert.equal(why === null, c.page, `restrictedReason(${c.url}) = ${why}`);
  }
});

test('names why a page cannot be debugged', () => {
  const cases = [
    ['chrome://settings/', /^a chrome:\/\/ page/],
    ['CHROME://version', /^a chrome:\/\/ page/],
    ['chrome-untrusted://print/', /chrome-untrusted:\/\//],
    ['chrome-search://local-ntp/', /chrome-search:\/\//],
    ['devtools://devtools/bundled/inspector.html', /DevTools/],
    ['edge://settings', /^an edge:\/\/ page/],
    ['about:settings', /^about:settings/],
    ['about:version', /^about:version/],
    ['https://chromewebstore.google.com/', /Web Store/],
    ['https://chromewebstore.google.com/detail/abc', /Web Store/],
    ['https://chrome.google.com/webstore', /Web Store/],
    ['https://chrome.google.com/webstore/detail/x?y', /Web Store/],
    ['http://CHROME.google.com/webstore/', /Web Store/],
    [
      'chrome-extension://abcdefghijklmnopabcdefghijklmnop/x.html',
      /an extension's page/,
    ],
    [`chrome-extension://${SELF_ID}/sidepanel.html`, /an extension's page/],
    ['view-source:https://example.com/?token=s3cret', /^a view-source: page$/],
    ['file:///home/u/.gasoline/credentials/approver.token', /a file: URL/],
    ['data:text/html,s3cret', /^a data: URL$/],
    ['javascript:alert(1)', /^a javascript: URL$/],
    ['not a url', /not a full URL/],
  ];
  for (const [url, want] of cases) {
    const got = restrictedReason(url);
    assert.match(got ?? 'null', want, url);
    assert.doesNotMatch(got, /s3cret/, 'never the URL itself');
  }
});

test('lets ordinary and allowed pages through', () => {
  for (const url of [
    'http://127.0.0.1:8080/',
    'https://example.com/webstore',
    'https://chrome.google.com/search',
    'https://chrome.google.com/webstorefront',
    'about:blank',
    'about:blank#x',
    'about:srcdoc',
    'blob:https://example.com/0b7f1c3e-1111-2222-3333-444455556666',
    '',
    undefined,
  ]) {
    assert.equal(restrictedReason(url), null, String(url));
  }
});

test('a tab is never navigated to a frame-only page', () => {
  assert.match(navigationRefused('about:srcdoc'), /not an http/);
  assert.match(navigationRefused('file:///etc/passwd'), /a file: URL/);
  assert.equal(navigationRefused('about:blank'), null);
  assert.equal(navigationRefused('https://example.com/'), null);
});
