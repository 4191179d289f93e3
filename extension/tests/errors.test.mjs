import assert from 'node:assert/strict';
import test from 'node:test';

import {
  ProtocolError,
  asProtocolError,
  mapChromeError,
  restrictedPage,
} from '../lib/errors.js';

test('maps Chrome error text to protocol codes', () => {
  const cases = [
    ['Cannot access a chrome:// URL', 'restricted_page', /chrome:\/\/ page/],
    [
      'Cannot access a chrome-extension:// URL of different extension',
      'restricted_page',
      /another extension/,
    ],
    [
      'The extensions gallery cannot be scripted.',
      'restricted_page',
      /Web Store/,
    ],
    ['Cannot attach to this target.', 'restricted_page', /DevTools/],
    ['Cannot access a devtools:// URL', 'restricted_page', /devtools:\/\//],
    [
      'Cannot access contents of url "view-source:x"',
      'restricted_page',
      /no access/,
    ],
    ['No tab with id: 12.', 'tab_closed', /tab 12 does not exist/],
    ['No tab with given id 12.', 'tab_closed', /tab 12 does not exist/],
    [
      'Cannot navigate to a devtools:// page.',
      'restricted_page',
      /does not let extensions open devtools:\/\/ pages/,
    ],
    [
      'Debugger is not attached to the tab with id: 12.',
      'detached',
      /detached from tab 12/,
    ],
    ['Detached while handling command.', 'detached', /re-attaches/],
    ["Invalid url pattern 'x'", 'bad_request', /Invalid url pattern/],
    [
      '{"code":-32601,"message":"\'Foo.bar\' wasn\'t found"}',
      'cdp_error',
      /Foo\.bar/,
    ],
  ];
  for (const [text, code, message] of cases) {
    for (const err of [text, new Error(text)]) {
      const got = mapChromeError(err, { tabId: 12 });
      assert.equal(got.code, code, text);
      assert.match(got.message, message, text);
      assert.equal(got.retryable, false, text);
    }
  }
});

test("restricted_page keeps Chrome's text for the record", () => {
  const got = mapChromeError('Cannot access a chrome:// URL', { tabId: 3 });
  assert.match(got.message, /tab 3/);
  assert.match(got.message, /Chrome said: Cannot access a chrome:\/\/ URL/);
});

test('a refused tab carries its tab_id, from which the daemon advises agents', () => {
  // internal/tools/link.go names close_tab from the code and tab_id.
  assert.equal(restrictedPage(3, "an extension's page").toJSON().tab_id, 3);
  const got = mapChromeError('Cannot attach to this target.', { tabId: 3 });
  assert.equal(got.toJSON().tab_id, 3);
  assert.match(
    got.message,
    /^Chrome will not let extensions debug tab 3: .* \(Chrome said: /,
  );
  // Opening a URL Chrome refuses is not about a tab: no tab_id.
  const open = mapChromeError('Cannot navigate to chrome://settings', {
    tabId: 3,
  });
  assert.equal(open.code, 'restricted_page');
  assert.equal(open.toJSON().tab_id, undefined);
});

test('ProtocolError has the wire shape', () => {
  assert.deepEqual(
    JSON.parse(JSON.stringify(new ProtocolError('timeout', 'slow'))),
    {
      code: 'timeout',
      message: 'slow',
      retryable: true,
    },
  );
  const e = new ProtocolError('tab_closed', 'gone', true);
  assert.equal(e.toJSON().retryable, true);
});

test('errors that are not protocol errors become internal', () => {
  const got = asProtocolError(new TypeError('x is undefined'), 'cdp.send');
  assert.deepEqual(got.toJSON(), {
    code: 'internal',
    message: 'cdp.send: x is undefined',
    retryable: false,
  });
  const pe = new ProtocolError('bad_request', 'no');
  assert.equal(asProtocolError(pe, 'w'), pe);
});
