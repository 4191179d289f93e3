import assert from 'node:assert/strict';
import test from 'node:test';

import { restrictedReason } from '../lib/restricted.js';
import { SELF_ID } from './fakechrome.mjs';

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
      /another extension/,
    ],
    ['view-source:https://example.com/?token=s3cret', /^a view-source: page$/],
  ];
  for (const [url, want] of cases) {
    const got = restrictedReason(url, SELF_ID);
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
    'data:text/html,hi',
    'file:///tmp/x.html',
    `chrome-extension://${SELF_ID}/panel.html`,
    '',
    undefined,
    'not a url',
  ]) {
    assert.equal(restrictedReason(url, SELF_ID), null, String(url));
  }
});
